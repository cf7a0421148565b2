package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	c4sync "github.com/zylos/zylos-memory/sync"
)

func c4Checkpoint(c *cli.Context) error {
	return checkpointCommand(c, false)
}

// checkpointCommand runs `c4 checkpoint` and, with safe set, `sync
// checkpoint`, whose creations go through the pipeline's checks. `c4
// checkpoint` speaks the dialect of the home's layout (tiers.C4Dialect).
func checkpointCommand(c *cli.Context, safe bool) error {
	e, path, err := c4Env(c)
	if err != nil {
		return err
	}
	own, _ := ownArgs(c)
	var args c4sync.CheckpointArgs
	if !safe && e.home.Kind.C4.Subcommands {
		args, err = checkpointSubcommand(c, own)
	} else {
		args, err = checkpointArgs(c, own)
	}
	if err != nil || args.Action == "" {
		return err
	}
	if !safe {
		if err := firstUse(e, path); err != nil {
			return err
		}
	}
	out, err := c4sync.CheckpointCommand(path, args, c4sync.CheckpointOptions{
		Safe: safe, Pipeline: c4sync.Pipeline{Layout: e.layout, DBPath: path}, Now: e.now,
	})
	if err != nil {
		return err
	}
	if safe {
		out += "\n"
	}
	_, err = io.WriteString(e.stdout, out)
	return err
}

// checkpointArgs reads the v2-era command line (a bare end id creates a
// checkpoint); --help shows the command's help and no Action.
func checkpointArgs(c *cli.Context, own []string) (c4sync.CheckpointArgs, error) {
	if helpRequested(c) {
		return c4sync.CheckpointArgs{}, showHelp(c)
	}
	args, err := c4sync.ParseCheckpointArgs(own)
	switch {
	case errors.Is(err, c4sync.ErrNoEndID):
		return args, usageExit(c, c4sync.CheckpointShortUsage)
	case errors.Is(err, c4sync.ErrUsage):
		return args, usageExit(c, "Error: "+err.Error()+"\n"+c4sync.CheckpointUsage)
	}
	return args, err
}

// checkpointSubcommand reads zylos v0.7.1's command line: subcommands
// only, the usage on stderr for --help (exit 0) and before the error of
// an unknown command.
func checkpointSubcommand(c *cli.Context, own []string) (c4sync.CheckpointArgs, error) {
	if helpRequested(c) {
		fmt.Fprintln(c.App.ErrWriter, c4sync.CheckpointCommandUsage)
		return c4sync.CheckpointArgs{}, nil
	}
	args, err := c4sync.ParseCheckpointCommand(own)
	switch {
	case errors.Is(err, c4sync.ErrHelp):
		fmt.Fprintln(c.App.ErrWriter, c4sync.CheckpointCommandUsage)
		return c4sync.CheckpointArgs{}, nil
	case errors.Is(err, c4sync.ErrNoEndID):
		return args, usageExit(c, c4sync.CheckpointCommandUsage)
	case errors.Is(err, c4sync.ErrUnknownCommand):
		return args, usageExit(c, c4sync.CheckpointCommandUsage+"\nError: "+err.Error())
	case errors.Is(err, c4sync.ErrUsage):
		return args, usageExit(c, "Error: "+err.Error())
	}
	return args, err
}
