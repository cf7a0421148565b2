package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/home"
)

// DefaultDeadline is how long an entry point may take before it gives up
// and answers nothing. It is far below every registered timeout so that a
// slow disk or a locked database never holds up the agent.
const DefaultDeadline = 800 * time.Millisecond

// Handler is one entry point: it turns the hook input into an answer.
// It must honour ctx; the runner stops waiting for it at the deadline.
type Handler func(ctx context.Context, env Env, in Input) (Answer, error)

// Env is what an entry point may use besides its input.
type Env struct {
	Layout tiers.Layout
	Now    func() time.Time
	Binary string // this binary's absolute path, for the commands the hooks advise
	// Getenv reads the environment the hook was started with, and Cwd is
	// its working directory (for an input that names none): the hook
	// process's, which the memory service answering for it does not share.
	Getenv func(string) string
	Cwd    string
	// Environ is the whole environment the hook was started with
	// (KEY=value), for the programs it runs (the journal's git); nil is
	// this process's.
	Environ []string
	// Home is the home opened once for the hook's request, from the
	// fields above; nil opens one from them (see home).
	Home *home.Home
}

// opened is e with its home opened, once for the whole hook, and its
// layout the home's (the kind detected once).
func (e Env) opened() Env {
	if e.Home == nil {
		lookup := func(k string) (string, bool) { v := e.getenv(k); return v, v != "" }
		e.Home = home.Of(e.Layout, home.Options{LookupEnv: lookup, Cwd: e.Cwd, Environ: e.Environ, Now: e.Now,
			Conversations: c4sync.OpenConversations})
	}
	e.Layout = e.Home.Layout
	return e
}

// Executable is this binary's absolute path, symlinks resolved: what the
// hooks are registered with, what the commands they advise run, and what
// the memory service compares a hook's own binary with (the kernel names
// /proc/self/exe by its resolved path).
func Executable() (string, error) {
	binary, err := os.Executable()
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(binary); err == nil {
		binary = resolved
	}
	return binary, nil
}

// home is the hook's home (see opened).
func (e Env) home() *home.Home {
	if e.Home == nil {
		return e.opened().Home
	}
	return e.Home
}

func (e Env) getenv(key string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(key)
}

// invocation is how the agent runs this binary for this home.
func (e Env) invocation() string {
	binary := e.Binary
	if binary == "" {
		binary = "zylos-memory"
	}
	return Invocation(binary, e.Layout.ZylosDir)
}

// handlers maps a subcommand to its entry point; an event without one is
// neither offered as a subcommand nor registered by init.
var handlers = map[string]Handler{
	SessionStart.Command:       outsideFirst(SessionStart, sessionStart),
	UserPromptSubmit.Command:   outsideFirst(UserPromptSubmit, userPromptSubmit),
	Stop.Command:               outsideFirst(Stop, stop),
	PreToolUse.Command:         openIntent(preToolUse),
	PostToolUse.Command:        toolChange(PostToolUse, postToolUse),
	PostToolUseFailure.Command: toolChange(PostToolUseFailure, toolFailed),
}

// toolFailed answers nothing: a failed call is only committed, for what it
// may have changed before it failed.
func toolFailed(context.Context, Env, Input) (Answer, error) { return Answer{}, nil }

// Options configures one run of an entry point.
type Options struct {
	Env      Env
	Deadline time.Duration
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
	// Finished, when set, is called once the entry point has returned,
	// which may be after Run returned at the deadline: a long-running
	// caller bounds the entry points still at work, where a hook process
	// simply exits.
	Finished func()
}

// Run executes the entry point of ev and returns the process exit status.
// It fails open: an unreadable input, an error, a panic or the deadline
// gives exit 0, nothing on stdout, and one line on stderr saying why.
func Run(ctx context.Context, ev Event, opts Options) int {
	h := handlers[ev.Command]
	if h == nil {
		if opts.Finished != nil {
			opts.Finished()
		}
		return failOpen(opts.Stderr, ev, fmt.Errorf("no entry point in this build"))
	}
	if opts.Finished != nil {
		h = finishing(h, opts.Finished)
	}
	if opts.Deadline <= 0 {
		opts.Deadline = DefaultDeadline
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Deadline)
	defer cancel()
	in := readInput(ctx, ev, opts)
	if in.Cwd == "" {
		in.Cwd = opts.Env.Cwd
	}
	ans, err := call(ctx, h, opts.Env.opened(), in)
	if err != nil {
		return failOpen(opts.Stderr, ev, err)
	}
	return write(opts, ev, ans)
}

func finishing(h Handler, finished func()) Handler {
	return func(ctx context.Context, env Env, in Input) (Answer, error) {
		defer finished()
		return h(ctx, env, in)
	}
}

// readInput spends at most half the deadline on stdin, so a pipe that is
// never closed still leaves the entry point time to answer. A bad input is
// reported and replaced by what could be read of it: the entry points that
// do not need the input still answer.
func readInput(ctx context.Context, ev Event, opts Options) Input {
	readCtx, cancel := context.WithTimeout(ctx, opts.Deadline/2)
	defer cancel()
	data, err := ReadInput(readCtx, opts.Stdin)
	if err != nil {
		note(opts.Stderr, ev, err)
		return Input{}
	}
	in, err := ParseInput(data)
	if err != nil && len(data) > 0 {
		note(opts.Stderr, ev, err)
	}
	return in
}

// call runs h in its own goroutine so that the deadline holds even when h
// blocks somewhere that ignores ctx (a file on a hung mount, say).
func call(ctx context.Context, h Handler, env Env, in Input) (Answer, error) {
	ans, err := untilDone(ctx, func() (Answer, error) { return h(ctx, env, in) })
	if errors.Is(err, errNoAnswer) {
		return Answer{}, fmt.Errorf("no answer within the deadline: %w", ctx.Err())
	}
	return ans, err
}

// errNoAnswer is untilDone's error when ctx ended first.
var errNoAnswer = errors.New("no answer in time")

// untilDone runs fn in its own goroutine and returns its result, or
// errNoAnswer as soon as ctx ends (see start).
func untilDone[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	return start(fn)(ctx)
}

// start runs fn in its own goroutine and returns a wait for its result
// that gives up with errNoAnswer as soon as ctx ends: fn may be blocked
// where ctx cannot reach (a SQLite busy wait, a read on a hung mount) and
// is then left behind. A panic in fn becomes an error.
func start[T any](fn func() (T, error)) (wait func(context.Context) (T, error)) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		v, err := fn()
		done <- result{v, err}
	}()
	return func(ctx context.Context) (T, error) {
		select {
		case res := <-done:
			return res.v, res.err
		case <-ctx.Done():
			var none T
			return none, errNoAnswer
		}
	}
}

func write(opts Options, ev Event, ans Answer) int {
	if ans.Output != nil {
		// Unescaped: the agent reads <memory-context> and reasons as written.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(ans.Output); err != nil {
			return failOpen(opts.Stderr, ev, fmt.Errorf("encode answer: %w", err))
		}
		if _, err := opts.Stdout.Write(buf.Bytes()); err != nil {
			return failOpen(opts.Stderr, ev, fmt.Errorf("write answer: %w", err))
		}
	}
	if ans.Message != "" {
		io.WriteString(opts.Stderr, ans.Message)
		if !strings.HasSuffix(ans.Message, "\n") {
			io.WriteString(opts.Stderr, "\n")
		}
	}
	return ans.Code
}

func failOpen(stderr io.Writer, ev Event, err error) int {
	fmt.Fprintf(stderr, "zylos-memory hook %s: %v (failing open)\n", ev.Command, err)
	return 0
}

func note(stderr io.Writer, ev Event, err error) {
	fmt.Fprintf(stderr, "zylos-memory hook %s: %v\n", ev.Command, err)
}
