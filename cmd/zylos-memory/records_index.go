package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/records"
)

func newRecordsIndexCommand() *cli.Command {
	return &cli.Command{
		Name:      "index",
		Usage:     "rebuild, validate, query, health-check or garbage-collect the records index",
		UsageText: "zylos-memory records index [--root R] (--rebuild | --validate | --query KW | --health | --gc)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "root", Usage: "records root (default: $ZYLOS_DIR/memory/records)"},
			&cli.BoolFlag{Name: "rebuild", Usage: "regenerate index.md from the active records"},
			&cli.BoolFlag{Name: "validate", Usage: "compare index.md with the files (exit 1 on drift)"},
			&cli.StringFlag{Name: "query", Usage: "print index lines containing `KEYWORD`"},
			&cli.BoolFlag{Name: "health", Usage: "report counts, heavy updates, recent retirements, sync"},
			&cli.BoolFlag{Name: "gc", Usage: "collect retired records past the grace period, then rebuild"},
		},
		Action: asChange("records index", "", runRecordsIndex),
	}
}

func runRecordsIndex(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	op, err := indexOp(c)
	if err != nil {
		return cli.Exit("zylos-memory: records index: "+err.Error(), 2)
	}
	root, err := recordsRoot(c, e, "")
	if err != nil {
		return err
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		fmt.Fprintf(e.stderr, "Error: %s is not a directory\n", root)
		return cli.Exit("", 1)
	}
	warn := warnTo(e.stderr)
	ok := true
	switch op {
	case "rebuild":
		err = records.IndexRebuild(root, e.stdout, warn)
	case "validate":
		ok, err = records.IndexValidate(root, e.stdout, warn)
	case "query":
		err = records.IndexQuery(root, c.String("query"), e.stdout)
	case "health":
		_, err = records.IndexHealth(root, e.now(), e.stdout, warn)
	case "gc":
		err = records.GarbageCollect(root, e.now(), e.stdout, warn)
	}
	if errors.Is(err, records.ErrNoIndex) {
		fmt.Fprintf(e.stdout, "ERROR: %v\n", err)
		return cli.Exit("", 1)
	}
	if err != nil {
		return recordsAnswer(e, nil, err)
	}
	if !ok {
		return cli.Exit("", 1)
	}
	return nil
}

// indexOp enforces argparse's mutually exclusive, required group.
func indexOp(c *cli.Context) (string, error) {
	var set []string
	for _, name := range []string{"rebuild", "validate", "query", "health", "gc"} {
		if c.IsSet(name) {
			set = append(set, name)
		}
	}
	if len(set) != 1 {
		return "", fmt.Errorf("exactly one of --rebuild, --validate, --query, --health, --gc is required")
	}
	return set[0], nil
}
