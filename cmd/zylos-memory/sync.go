package main

import (
	"io"

	"github.com/urfave/cli/v2"

	c4sync "github.com/zylos/zylos-memory/sync"
)

// syncUsage is what memory-sync.js prints without a subcommand.
const syncUsage = `Memory Sync Helper

Usage:
  memory-sync.js fetch --begin <id> --end <id>   Fetch conversations
  memory-sync.js checkpoint <end_id> --summary "text"  Create checkpoint
  memory-sync.js status                           Show unsummarized count

`

func newSyncCommand() *cli.Command {
	return withC4DBFlag(&cli.Command{
		Name:    "sync",
		Aliases: []string{"memory-sync"},
		Usage:   "memory sync helper: status, fetch, run, checkpoint (refuses unsafe checkpoints)",
		Action: func(c *cli.Context) error {
			_, err := io.WriteString(c.App.Writer, syncUsage)
			return err
		},
		Subcommands: []*cli.Command{
			{Name: "status", Usage: "show the unsummarized range (c4 unsummarized)", Action: func(c *cli.Context) error {
				return withExtraNewline(c, c4Unsummarized)
			}},
			{Name: "fetch", Usage: "fetch conversations (c4 fetch) and record the range as fetched",
				ArgsUsage: "--begin <id> --end <id> | --unsummarized", SkipFlagParsing: true, Action: syncFetch(false)},
			{Name: "run", Usage: "rotate the session log, fetch the range, list the memory files to update",
				ArgsUsage: "--begin <id> --end <id>", SkipFlagParsing: true, Action: asChange("sync run", "", syncFetch(true))},
			{Name: "checkpoint", Usage: "create a checkpoint once memory is written; refuses unfetched or unknown ids",
				ArgsUsage: `<end_id> [--summary "text"] | list [--limit N] | latest`, SkipFlagParsing: true,
				Action: func(c *cli.Context) error { return checkpointCommand(c, true) }},
		},
	})
}

// withExtraNewline runs action and adds the newline console.log put after
// each wrapped script's output.
func withExtraNewline(c *cli.Context, action cli.ActionFunc) error {
	if err := action(c); err != nil {
		return err
	}
	_, err := io.WriteString(c.App.Writer, "\n")
	return err
}

func syncFetch(run bool) cli.ActionFunc {
	return func(c *cli.Context) error {
		if own, _ := ownArgs(c); !run && c4sync.WantsUnsummarized(own) && !helpRequested(c) {
			e, path, err := c4Env(c)
			if err != nil {
				return err
			}
			out, err := c4sync.Pipeline{Layout: e.layout, DBPath: path}.FetchUnsummarized()
			if err != nil {
				return err
			}
			_, err = io.WriteString(e.stdout, out+"\n")
			return err
		}
		return withRange(c, func(begin, end int64) error {
			e, path, err := c4Env(c)
			if err != nil {
				return err
			}
			now, err := e.localNow()
			if err != nil {
				return err
			}
			p := c4sync.Pipeline{Layout: e.layout, DBPath: path, Now: now}
			var out string
			if run {
				out, err = p.Run(begin, end)
			} else {
				out, err = p.Fetch(begin, end)
				out += "\n" // console.log after the wrapped script's output
			}
			if err != nil {
				return err
			}
			_, err = io.WriteString(e.stdout, out)
			return err
		})
	}
}
