package main

import (
	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/hooks/resident"
	"github.com/zylos/zylos-memory/internal/dashboard"
	"github.com/zylos/zylos-memory/internal/doctor"
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
			checks := append(doctor.Diagnose(e.layout), resident.Diagnose(e.layout), dashboard.Diagnose(e.layout))
			checks = append(checks, journalChecks(c, e)...)
			if doctor.WriteReport(e.stdout, checks) {
				return cli.Exit("", 1)
			}
			return nil
		},
	}
}
