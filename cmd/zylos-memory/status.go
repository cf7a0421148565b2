package main

import (
	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers"
)

func statusCommands() []*cli.Command {
	return []*cli.Command{
		&cli.Command{
			Name:  "status",
			Usage: "list memory files with sizes, dates and the core.md budget, then the scheduled tasks",
			Action: func(c *cli.Context) error {
				e, err := envFrom(c)
				if err != nil {
					return err
				}
				if err := layoutStatus(e); err != nil {
					return err
				}
				return schedulerStatus(e)
			},
		},
		// The Node script's name keeps its output byte for byte: the scheduler
		// section, which memory-status.js never prints, is only under status.

		&cli.Command{
			Name:  "memory-status",
			Usage: "memory-status.js's report exactly: status without the scheduler section",
			Action: func(c *cli.Context) error {
				e, err := envFrom(c)
				if err != nil {
					return err
				}
				return layoutStatus(e)
			},
		},
	}
}

// layoutStatus is the report of the layout's memory-status.js: v0.7.1's
// budgets of identity, state and references in a v0.7 home.
func layoutStatus(e *env) error {
	return tiers.LayoutStatus(e.layout, e.stdout)
}
