package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/hooks"
)

func newHookCommand() *cli.Command {
	hook := &cli.Command{
		Name:  "hook",
		Usage: "Claude Code hook entry points (read the hook JSON on stdin; always exit 0 on their own failure)",
	}
	for _, ev := range hooks.Events() {
		hook.Subcommands = append(hook.Subcommands, hookCommand(ev))
	}
	return hook
}

func hookCommand(ev hooks.Event) *cli.Command {
	return &cli.Command{
		Name:  ev.Command,
		Usage: fmt.Sprintf("answer Claude Code's %s hook", ev.Name),
		Flags: []cli.Flag{&cli.DurationFlag{
			Name:  "timeout",
			Usage: "deadline after which the hook gives up and answers nothing",
			Value: hooks.DefaultDeadline,
		}},
		Action: func(c *cli.Context) error {
			opts := hooks.Options{Deadline: c.Duration("timeout"), Stdin: c.App.Reader, Stdout: c.App.Writer, Stderr: c.App.ErrWriter}
			e, err := envFrom(c)
			if err != nil {
				// Even a bad --zylos-dir or clock must not block the agent.
				fmt.Fprintf(opts.Stderr, "zylos-memory hook %s: %v (failing open)\n", ev.Command, err)
				return nil
			}
			e.home.Warn, e.home.JournalNote = nil, nil // a hook says its own
			opts.Env = hooks.Env{Layout: e.home.Layout, Now: e.now, Getenv: os.Getenv, Cwd: e.cwd, Home: e.home}
			if binary, err := hooks.Executable(); err == nil {
				opts.Env.Binary = binary
			}
			if code := hooks.Run(c.Context, ev, opts); code != 0 {
				return cli.Exit("", code)
			}
			return nil
		},
	}
}
