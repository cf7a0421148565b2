package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/hooks"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/home"
)

// env is what a command takes from the process: the home it works on, the
// clock, and the streams it reads and writes.
type env struct {
	// home is the home opened once for the command: every memory change
	// goes through it.
	home   *home.Home
	layout tiers.Layout // the home's, its kind detected once (init pins it again once it seeded one)
	now    func() time.Time
	cwd    string // "" when it cannot be read
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// envFrom is the env of a command that works on the memory: it refuses a
// home whose memory paths lead outside it (see tiers.Layout.CheckConfined).
func envFrom(c *cli.Context) (*env, error) {
	e, err := homeEnv(c)
	if err != nil {
		return nil, err
	}
	if err := e.layout.CheckConfined(); err != nil {
		return nil, err
	}
	return e, nil
}

// homeEnv is the env without the memory check, for the commands that only
// touch the C4 database.
func homeEnv(c *cli.Context) (*env, error) {
	if e, ok := c.App.Metadata[envKey].(*env); ok {
		return e, nil // opened once for the command
	}
	e, err := openEnv(c)
	if err == nil {
		if c.App.Metadata == nil {
			c.App.Metadata = map[string]any{}
		}
		c.App.Metadata[envKey] = e
	}
	return e, err
}

// envKey is where the command's env is kept, once opened.
const envKey = "zylos-memory env"

func openEnv(c *cli.Context) (*env, error) {
	dir := c.String("zylos-dir")
	if dir == "" {
		return nil, fmt.Errorf("--zylos-dir is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("zylos dir %q: %w", dir, err)
	}
	cwd, _ := os.Getwd()
	h, err := home.Open(home.Options{ZylosDir: abs, LookupEnv: os.LookupEnv, Cwd: cwd, Warn: warnTo(c.App.ErrWriter),
		Conversations: c4sync.OpenConversations})
	if err != nil {
		return nil, err
	}
	h.JournalNote = func(err error) { fmt.Fprintf(c.App.ErrWriter, "zylos-memory: journal: %v\n", err) }
	return &env{
		home:   h,
		layout: h.Layout,
		now:    h.Now,
		cwd:    cwd,
		stdin:  c.App.Reader,
		stdout: c.App.Writer,
		stderr: c.App.ErrWriter,
	}, nil
}

// reopen opens e's home again, for one request of a command that serves
// many (the memory service): its kind detected anew.
func (e *env) reopen() *home.Home {
	h := home.Of(e.layout, home.Options{LookupEnv: os.LookupEnv, Cwd: e.cwd, Now: e.now, Warn: e.home.Warn,
		Conversations: c4sync.OpenConversations})
	h.JournalNote = e.home.JournalNote
	return h
}

// location is the timezone for dates and schedules (see tiers.Layout.Location).
func (e *env) location() (*time.Location, error) { return e.layout.Location() }

// localNow is now in the home's timezone: the clock every date of the
// memory tiers (session headers, rotation, consolidation) is read on.
func (e *env) localNow() (time.Time, error) {
	loc, err := e.location()
	if err != nil {
		return time.Time{}, err
	}
	return e.now().In(loc), nil
}

// invocation is how the agent runs this binary for this home (see
// hooks.Invocation); the bare name when the binary cannot be located.
func (e *env) invocation() string {
	binary, err := hooks.Executable()
	if err != nil {
		binary = "zylos-memory"
	}
	return hooks.Invocation(binary, e.layout.ZylosDir)
}
