package main

import (
	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/hooks/resident"
	"github.com/zylos/zylos-memory/internal/dashboard"
)

func newDoctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the installation: dirs, core.md, databases, hooks registered and answering in time",
		Action: func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			checks := append(hooks.Diagnose(e.layout), resident.Diagnose(e.layout), dashboard.Diagnose(e.layout))
			checks = append(checks, journalChecks(c, e)...)
			if hooks.WriteReport(e.stdout, checks) {
				return cli.Exit("", 1)
			}
			return nil
		},
	}
}
