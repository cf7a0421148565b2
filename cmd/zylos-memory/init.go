package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/hooks"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

func init() {
	register(&cli.Command{
		Name:  "init",
		Usage: "create the memory home: dirs, templates, today's session log, skill files (idempotent)",
		Flags: []cli.Flag{&cli.BoolFlag{
			Name:  "force",
			Usage: "replace templates and skill files that differ, after saving a copy under memory/.state/backups/",
		}, &cli.BoolFlag{
			Name: "capture-prompts",
			Usage: "record prompts typed into Claude Code and its final replies in C4 (channel claude-code); " +
				"--capture-prompts=false turns it off; unset leaves it as it is",
		}},
		Action: func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			return runInit(e, c.Bool("force"), captureSetting(c)...)
		},
	})
}

// runInit is a list of steps, each printing what it did; a step that fails
// stops the list.
func runInit(e *env, force bool, vars ...hooks.EnvVar) error {
	now, err := e.localNow()
	if err != nil {
		return err
	}
	report, err := tiers.Init(e.layout, now, force)
	for _, line := range report.Lines() {
		fmt.Fprintln(e.stdout, line)
	}
	if err != nil {
		return fmt.Errorf("init memory: %w", err)
	}
	if err := initC4(e); err != nil {
		return err
	}
	if err := initScheduler(e); err != nil {
		return err
	}
	return initHooks(e, vars...)
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
