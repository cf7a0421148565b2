package main

import (
	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers"
)

func init() {
	register(&cli.Command{
		Name:    "inject",
		Aliases: []string{"session-start-inject"},
		Usage:   "print core.md as session-start context (session-start-inject.js)",
		Flags: []cli.Flag{&cli.StringFlag{
			Name:  "format",
			Usage: "v2 ({\"additionalContext\":...}), claude (hookSpecificOutput, capped at 10,000 characters) or text",
			Value: tiers.FormatV2,
		}},
		Action: func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			return tiers.WriteInject(e.stdout, e.layout, c.String("format"))
		},
	})
}
