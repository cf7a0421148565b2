package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/scheduler"
	"github.com/zylos/zylos-memory/tiers"
)

func newSchedulerCommand() *cli.Command {
	subs := append([]*cli.Command{newSchedulerRunCommand()}, schedulerAddCommands()...)
	subs = append(subs, schedulerReadCommands()...)
	sortByName(subs)
	return &cli.Command{
		Name:  "scheduler",
		Usage: "the internal cron daemon and its tasks",
		Description: "Tasks live in memory/.state/scheduler.db. `scheduler run` is the service;\n" +
			"the other subcommands edit and inspect its tasks while it runs.",
		Subcommands: subs,
	}
}

// schedulerReadCommands read and change the tasks one by one.
func schedulerReadCommands() []*cli.Command {
	return []*cli.Command{
		&cli.Command{
			Name:  "list",
			Usage: "list tasks with their next and last run",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
			Action: readScheduler(func(c *schedArgs, sc *schedCtx) error {
				tasks, err := sc.store.List()
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return scheduler.WriteTasksJSON(sc.stdout, tasks)
				}
				return scheduler.WriteTasks(sc.stdout, tasks, sc.loc)
			}),
		},
		&cli.Command{
			Name:      "history",
			Usage:     "show recent runs, of one task or all",
			ArgsUsage: "[NAME]",
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "limit", Value: 20, Usage: "number of runs"},
				&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			},
			Action: readScheduler(func(c *schedArgs, sc *schedCtx) error {
				if c.NArg() > 1 {
					return fmt.Errorf("history takes at most one task name")
				}
				if c.Int("limit") < 1 {
					return fmt.Errorf("--limit %d: must be at least 1", c.Int("limit"))
				}
				runs, err := sc.store.History(c.First(), c.Int("limit"))
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return scheduler.WriteRunsJSON(sc.stdout, runs)
				}
				return scheduler.WriteRuns(sc.stdout, runs, sc.loc)
			}),
		},
		nameCommand("remove", "delete a task (its history stays)", "Task removed",
			func(sc *schedCtx, name string) error { return sc.store.Remove(name) }),
		nameCommand("pause", "stop a task from running until resumed", "Task paused",
			func(sc *schedCtx, name string) error { return sc.store.SetEnabled(name, false, sc.now(), sc.loc) }),
		nameCommand("resume", "run a paused task again from its next slot", "Task resumed",
			func(sc *schedCtx, name string) error { return sc.store.SetEnabled(name, true, sc.now(), sc.loc) }),
	}
}

// schedCtx is what every scheduler subcommand works with.
type schedCtx struct {
	*env
	store *scheduler.Store
	loc   *time.Location
}

// withScheduler runs action on the home's state DB, creating it if needed.
func withScheduler(action func(*schedArgs, *schedCtx) error) cli.ActionFunc {
	return withStore(scheduler.Open, action)
}

// readScheduler is withScheduler for the commands that only read: they
// create and change nothing, and a home without a state DB has no tasks.
func readScheduler(action func(*schedArgs, *schedCtx) error) cli.ActionFunc {
	return withStore(scheduler.OpenRead, action)
}

func withStore(open func(tiers.Layout) (*scheduler.Store, error), action func(*schedArgs, *schedCtx) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		args, err := parseSchedArgs(c)
		if err != nil {
			return fmt.Errorf("%v\nTry: %s --help", err, c.Command.HelpName)
		}
		e, err := envFrom(c)
		if err != nil {
			return err
		}
		loc, err := e.location()
		if err != nil {
			return err
		}
		store, err := open(e.layout)
		if err != nil {
			return err
		}
		defer store.Close()
		return action(args, &schedCtx{env: e, store: store, loc: loc})
	}
}

// nameCommand is a subcommand taking exactly one task name.
func nameCommand(name, usage, done string, act func(*schedCtx, string) error) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "NAME",
		Action: withScheduler(func(c *schedArgs, sc *schedCtx) error {
			if c.NArg() != 1 {
				return fmt.Errorf("%s takes exactly one task name", name)
			}
			task := c.First()
			if err := act(sc, task); err != nil {
				return err
			}
			_, err := fmt.Fprintf(sc.stdout, "%s: %s\n", done, task)
			return err
		}),
	}
}
