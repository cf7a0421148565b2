package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/dashboard"
	"github.com/zylos/zylos-memory/scheduler"
)

func newUICommand() *cli.Command {
	return &cli.Command{
		Name:  "ui",
		Usage: "print the URL (with its access token) of the dashboard the memory service serves",
		Description: "The memory service (zylos-memory scheduler run, what `make run` starts) serves the\n" +
			"dashboard on the loopback interface; open the printed URL in a browser.",
		Action: func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			if running, _ := scheduler.Running(e.layout); !running {
				return cli.Exit("zylos-memory: the memory service is not running, so no dashboard is served (start it: zylos-memory scheduler run)", 1)
			}
			url, err := dashboard.URL(e.layout)
			if err != nil {
				return cli.Exit("zylos-memory: "+err.Error(), 1)
			}
			fmt.Fprintln(e.stdout, url)
			return nil
		},
	}
}
