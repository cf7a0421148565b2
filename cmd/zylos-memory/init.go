package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/hooks/register"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

func newInitCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "create the memory home: dirs, templates, today's session log, skill files (idempotent)",
		Flags: []cli.Flag{&cli.BoolFlag{
			Name:  "force",
			Usage: "replace templates and skill files that differ, after saving a copy under memory/.state/backups/",
		}, &cli.StringFlag{
			Name:  "layout",
			Usage: "memory layout of a new home: v2 (core.md) or v07 (zylos v0.7: identity.md, state.md, references.md); default: the one the home has, else v2",
		}, &cli.BoolFlag{
			Name: "capture-prompts",
			Usage: "record prompts typed into Claude Code and its final replies in C4 (channel claude-code); " +
				"--capture-prompts=false turns it off; unset leaves it as it is",
		}, &cli.BoolFlag{
			Name:  "git-snapshots",
			Usage: "also register memory-git-snapshot-daily: commit memory/ (not memory/.state/) to its own git repository each day",
		}, journalFlag, fromFlag},
		Action: asChange("init", "", func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			if err := initFrom(c, e); err != nil {
				return err
			}
			gaps, _ := e.layout.PrivacyGaps(3)
			if err := runInit(e, c.Bool("force"), c.String("layout"), c.Bool("git-snapshots"), captureSetting(c)...); err != nil {
				return err
			}
			if err := initJournal(c, e); err != nil {
				return err
			}
			return initPrivacy(e, gaps)
		}),
	}
}

// initPrivacy closes the memory and the C4 database to group and others,
// unless the home is shared on purpose; gaps are those the home had
// before init, which it names as repaired.
func initPrivacy(e *env, gaps []string) error {
	if e.layout.Shared() {
		if len(gaps) > 0 {
			fmt.Fprintf(e.stdout, "home shared on purpose (%s in .env): modes kept\n", tiers.SharedVar)
		}
		return nil
	}
	if _, err := e.layout.MakePrivate(); err != nil {
		return err
	}
	if len(gaps) > 0 {
		fmt.Fprintf(e.stdout, "made the home private: %s and all it holds closed to group and others\n", strings.Join(gaps, ", "))
	}
	return nil
}

// runInit is a list of steps, each printing what it did; a step that fails
// stops the list.
func runInit(e *env, force bool, layout string, snapshots bool, vars ...register.EnvVar) error {
	now, err := e.localNow()
	if err != nil {
		return err
	}
	kind := e.layout.SeedKind()
	if layout != "" {
		if kind, err = tiers.ParseKind(layout); err != nil {
			return err
		}
	}
	report, err := tiers.InitKind(e.layout, now, force, kind)
	if errors.Is(err, tiers.ErrLayoutMismatch) {
		return err
	}
	for _, line := range report.Lines() {
		fmt.Fprintln(e.stdout, line)
	}
	if err != nil {
		return fmt.Errorf("init memory: %w", err)
	}
	// The rest of init works on the layout it seeded, detected again.
	e.home = e.reopen()
	e.layout = e.home.Layout
	if err := initC4(e); err != nil {
		return err
	}
	if err := initScheduler(e, snapshots); err != nil {
		return err
	}
	if err := initHooks(e, vars...); err != nil {
		return err
	}
	return initMCP(e)
}

// initC4 creates the C4 database when it is missing; an existing one,
// possibly the Node C4's, is never touched.
func initC4(e *env) error {
	created, err := c4sync.Create(e.layout.C4DB())
	if err != nil {
		return fmt.Errorf("init c4 db: %w", err)
	}
	if created {
		fmt.Fprintln(e.stdout, "created comm-bridge/c4.db")
	}
	return nil
}
