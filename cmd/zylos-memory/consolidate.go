package main

import (
	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers"
)

// consolidateOptions is what the consolidate command was asked to do.
type consolidateOptions struct{}

func init() {
	register(&cli.Command{
		Name:  "consolidate",
		Usage: "print the consolidation report as JSON (consolidate.js)",
		Action: func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			return runConsolidate(e, consolidateOptions{})
		},
	})
}

func runConsolidate(e *env, _ consolidateOptions) error {
	loc, err := e.location()
	if err != nil {
		return err
	}
	report, err := tiers.Consolidation(e.layout, e.now().In(loc))
	if err != nil {
		return err
	}
	return report.WriteJSON(e.stdout)
}
