package main

import (
	"errors"
	"io"

	"github.com/urfave/cli/v2"

	c4sync "github.com/zylos/zylos-memory/sync"
)

func c4Checkpoint(c *cli.Context) error {
	return checkpointCommand(c, false)
}

// checkpointCommand runs `c4 checkpoint` and, with safe set, `sync
// checkpoint`, whose creations go through the pipeline's checks.
func checkpointCommand(c *cli.Context, safe bool) error {
	if helpRequested(c) {
		return showHelp(c)
	}
	own, _ := ownArgs(c)
	args, err := c4sync.ParseCheckpointArgs(own)
	if errors.Is(err, c4sync.ErrNoEndID) {
		return usageExit(c, c4sync.CheckpointShortUsage)
	}
	if errors.Is(err, c4sync.ErrUsage) {
		return usageExit(c, "Error: "+err.Error()+"\n"+c4sync.CheckpointUsage)
	}
	if err != nil {
		return err
	}
	e, path, err := c4Env(c)
	if err != nil {
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
