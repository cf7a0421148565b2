package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers"
)

func init() {
	register(&cli.Command{
		Name:    "rotate",
		Aliases: []string{"rotate-session"},
		Usage:   "move yesterday's sessions/current.md to sessions/DATE.md and start today's (rotate-session.js)",
		Action: func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			loc, err := e.location()
			if err != nil {
				return err
			}
			msgs, err := tiers.Rotate(e.layout, e.now().In(loc))
			for _, m := range msgs {
				fmt.Fprintln(e.stdout, m)
			}
			return err
		},
	})
}
