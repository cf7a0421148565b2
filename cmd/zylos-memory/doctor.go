package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/dashboard"
	"github.com/zylos/zylos-memory/doctor"
	"github.com/zylos/zylos-memory/tiers/home"
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
			if doctor.WriteReport(e.stdout, checks(c.Context, e, e.home)) {
				return cli.Exit("", 1)
			}
			return nil
		},
	}
}

// checks is the doctor's whole list for h, the home of e opened for the
// request, as doctor prints it and the memory service's dashboard shows
// it.
func checks(ctx context.Context, e *env, h *home.Home) []doctor.Check {
	return doctor.Home(ctx, h, dashboard.Diagnose(e.layout))
}
