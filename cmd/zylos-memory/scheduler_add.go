package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/scheduler"
)

func schedulerAddCommands() []*cli.Command {
	return []*cli.Command{
		&cli.Command{
			Name:      "add",
			Usage:     "add a task that queues PROMPT into C4 on a schedule",
			ArgsUsage: "PROMPT",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "cron", Usage: "cron expression or descriptor (\"0 9 * * 1-5\", @daily)"},
				&cli.StringFlag{Name: "every", Usage: "interval (30m, 2h, \"2 hours\")"},
				&cli.StringFlag{Name: "in", Usage: "run once after this duration"},
				&cli.StringFlag{Name: "at", Usage: "run once at this time (RFC 3339, \"2006-01-02 15:04\", 15:04)"},
				&cli.IntFlag{Name: "priority", Value: 3, Usage: "C4 priority: 1 urgent, 2 high, 3 normal"},
				&cli.BoolFlag{Name: "require-idle", Usage: "wait until the agent is idle"},
				&cli.StringFlag{Name: "name", Usage: "task name (default task-<date>-<time>)"},
				&cli.StringFlag{Name: "timezone", Usage: "IANA timezone of the schedule (default: the home's)"},
				&cli.StringFlag{Name: "miss-window", Usage: "how late a slot missed while stopped may still run", Value: "5m"},
			},
			Action: withScheduler(func(c *schedArgs, sc *schedCtx) error {
				if c.NArg() != 1 {
					return fmt.Errorf("add takes one PROMPT argument (quote it); got %d", c.NArg())
				}
				t, err := scheduler.AddUser(sc.store, scheduler.AddOptions{
					Prompt: c.First(), Cron: c.String("cron"), Every: c.String("every"),
					In: c.String("in"), At: c.String("at"), Priority: c.Int("priority"),
					RequireIdle: c.Bool("require-idle"), Name: c.String("name"),
					Timezone: c.String("timezone"), MissWindow: c.String("miss-window"),
				}, sc.now(), sc.loc)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(sc.stdout, "Task added: %s (next run %s)\n", t.Name,
					scheduler.FormatTime(t.NextRun, sc.loc))
				return err
			}),
		},
		&cli.Command{
			Name:      "trigger",
			Usage:     "run a task now (recorded in the history)",
			ArgsUsage: "NAME",
			Action: withScheduler(func(c *schedArgs, sc *schedCtx) error {
				if c.NArg() != 1 {
					return fmt.Errorf("trigger takes exactly one task name")
				}
				runner := &scheduler.Runner{Layout: sc.layout, Home: sc.loc}
				defer runner.Close()
				run, err := runner.Trigger(sc.store, c.First(), sc.now())
				if err != nil {
					return err
				}
				fmt.Fprintf(sc.stdout, "Task %s: %s (%s)\n", run.Task, run.Status, run.Detail)
				if run.Status == scheduler.StatusError {
					return cli.Exit("", 1)
				}
				return nil
			}),
		},
	}
}
