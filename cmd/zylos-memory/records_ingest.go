package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/bridge"
)

func newRecordsIngestCommand() *cli.Command {
	return &cli.Command{
		Name:      "ingest",
		Usage:     "take hand edits of memory/reference/*.md into the records (create, update, retire)",
		UsageText: "zylos-memory records ingest [--dry-run] [--json]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would change; change nothing"},
			&cli.BoolFlag{Name: "json", Usage: "answer {\"dry_run\",\"changes\",\"problems\"} as JSON"},
		},
		Action: asChange("records ingest", "", runRecordsIngest),
	}
}

func runRecordsIngest(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	if c.NArg() > 0 {
		return cli.Exit(fmt.Sprintf("zylos-memory: records ingest: unexpected argument %q", c.Args().First()), 2)
	}
	if !e.home.HasMemory() {
		return cli.Exit("zylos-memory: records ingest: no memory directory at "+e.layout.MemoryDir()+" (run zylos-memory init)", 1)
	}
	rep, err := e.home.Ingest(c.Bool("dry-run"), 0)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if rep.Changes == nil {
			rep.Changes = []bridge.Change{}
		}
		if rep.Problems == nil {
			rep.Problems = []bridge.Problem{}
		}
		out, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, string(out))
	} else {
		printIngest(e, rep)
	}
	if len(rep.Problems) > 0 {
		return cli.Exit("", 1)
	}
	return nil
}

// printIngest prints one line per change on stdout (prefixed "would" in a
// dry run), or that nothing changed and whether anything is left to mend,
// and one line per problem on stderr.
func printIngest(e *env, rep bridge.Report) {
	prefix := ""
	if rep.DryRun {
		prefix = "would have "
	}
	for _, ch := range rep.Changes {
		fmt.Fprintln(e.stdout, prefix+ch.String())
	}
	switch n := len(rep.Problems); {
	case len(rep.Changes) > 0:
	case n == 0:
		fmt.Fprintln(e.stdout, "Nothing to ingest: the reference tier and the records agree.")
	case n == 1:
		fmt.Fprintln(e.stdout, "Nothing ingested: 1 problem to mend, listed on stderr.")
	default:
		fmt.Fprintf(e.stdout, "Nothing ingested: %d problems to mend, listed on stderr.\n", n)
	}
	printDeferred(e, rep)
	for _, p := range rep.Problems {
		fmt.Fprintln(e.stderr, "zylos-memory: records ingest: "+p.String())
	}
}

// printChanges prints what an ingest run by another command changed, one
// "record ..." line each, and its problems as warnings on stderr.
func printChanges(e *env, rep bridge.Report) {
	for _, ch := range rep.Changes {
		fmt.Fprintln(e.stdout, "record "+ch.String())
	}
	printDeferred(e, rep)
	for _, p := range rep.Problems {
		fmt.Fprintln(e.stderr, "[WARN] "+p.String())
	}
}

func printDeferred(e *env, rep bridge.Report) {
	if rep.Deferred > 0 {
		fmt.Fprintf(e.stdout, "%d more new entries are left for the next ingest (zylos-memory records ingest)\n", rep.Deferred)
	}
}
