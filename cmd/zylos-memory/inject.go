package main

import (
	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers"
)

func newInjectCommand() *cli.Command {
	return &cli.Command{
		Name:    "inject",
		Aliases: []string{"session-start-inject"},
		Usage:   "print the memory context of session start (session-start-inject.js): core.md, or a v0.7 home's identity, state and references",
		Flags: []cli.Flag{&cli.StringFlag{
			Name: "format",
			Usage: "v2 ({\"additionalContext\":...}), claude (hookSpecificOutput, capped at 10,000 characters) or text; " +
				"default: what the layout's session-start-inject.js prints (v2 for a v2 home, text for a v0.7 home)",
		}},
		Action: func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			return tiers.WriteInject(e.stdout, e.layout, c.String("format"))
		},
	}
}
