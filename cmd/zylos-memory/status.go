package main

import (
	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers"
)

func init() {
	register(&cli.Command{
		Name:    "status",
		Aliases: []string{"memory-status"},
		Usage:   "list memory files with sizes, dates and the core.md budget (memory-status.js)",
		Action: func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			if err := tiers.Status(e.layout, e.stdout); err != nil {
				return err
			}
			return schedulerStatus(e)
		},
	})
}
