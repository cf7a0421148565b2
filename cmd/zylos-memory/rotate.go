package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers"
)

func newRotateCommand() *cli.Command {
	return &cli.Command{
		Name:    "rotate",
		Aliases: []string{"rotate-session"},
		Usage:   "move yesterday's sessions/current.md to sessions/DATE.md and start today's (rotate-session.js)",
		Action: asChange("rotate", "", func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			now, err := e.localNow()
			if err != nil {
				return err
			}
			steps, err := tiers.Rotate(e.layout, now)
			for _, m := range steps.Messages(e.home.Kind) {
				fmt.Fprintln(e.stdout, m)
			}
			return err
		}),
	}
}
