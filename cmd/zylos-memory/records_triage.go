package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/hooks/triage"
	"github.com/zylos/zylos-memory/tiers/records"
)

func newRecordsTriageCommand() *cli.Command {
	return &cli.Command{
		Name:  "triage",
		Usage: "Stop hook: read {\"session_id\",\"transcript_path\",\"last_assistant_message\"} on stdin; exit 2 with what to save on stderr, else exit 0",
		UsageText: `echo '{"session_id":"...","transcript_path":"..."}' | zylos-memory records triage [--root R]` +
			"\n   exit 0 lets the agent stop; exit 2 blocks it with the items to save on stderr",
		Flags: []cli.Flag{
			recallRootFlag(),
			&cli.StringFlag{Name: "context-dir", Usage: "where the per-category context files are written (default: the session's directory under memory/.state/sessions/)"},
			&cli.DurationFlag{Name: "timeout", Value: triage.DefaultTimeout, Usage: "deadline after which the stop is allowed"},
		},
		Action: runTriage,
	}
}

// runTriage fails open: a bad setup, config or input lets the agent stop.
func runTriage(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "memory triage: %v (allowing stop)\n", err)
		return nil
	}
	opts := triage.Options{
		Config:     triageConfig(c.String("root"), e),
		Home:       os.Getenv("HOME"),
		StateDir:   e.layout.StateDir(),
		ContextDir: c.String("context-dir"),
		Command:    e.invocation(),
		Now:        e.now,
		Timeout:    c.Duration("timeout"),
	}
	if code := triage.Run(c.Context, e.stdin, e.stderr, opts); code != triage.ExitAllow {
		return cli.Exit("", code)
	}
	return nil
}

// triageConfig is the triage section of the records config, its defaults
// when the file is missing or unreadable (reported, never fatal).
func triageConfig(explicitRoot string, e *env) records.TriageConfig {
	root, err := records.ResolveRoot(explicitRoot, "", e.layout.RecordsDir())
	if err != nil {
		return records.DefaultConfig().Triage
	}
	cfg, err := records.LoadConfig(root)
	if err != nil {
		fmt.Fprintf(e.stderr, "memory triage: %v (using defaults)\n", err)
	}
	return cfg.Triage
}
