package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/records"
	"github.com/zylos/zylos-memory/tiers/records/recall"
)

func init() {
	registerSub("records", &cli.Command{
		Name:  "search",
		Usage: "search records and markdown memory by keyword, ranked, with paths",
		UsageText: "zylos-memory records search QUERY [--include-archive] [--include-retired]" +
			" [--root R] [--limit N] [--json]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "include-archive", Usage: "also search archived records and memory/archive"},
			&cli.BoolFlag{Name: "include-retired", Usage: "also search retired records"},
			&cli.IntFlag{Name: "limit", Value: recall.DefaultSearchLimit, Usage: "most results to show (0: all)"},
			&cli.BoolFlag{Name: "json", Usage: "print a JSON array"},
			recallRootFlag(),
		},
		Action: runSearch,
	})
}

func runSearch(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	query := strings.Join(c.Args().Slice(), " ")
	if strings.TrimSpace(query) == "" {
		return fmt.Errorf("records search: give a QUERY")
	}
	if c.Int("limit") < 0 {
		return fmt.Errorf("records search: --limit must be 0 or more")
	}
	root, err := records.ResolveRoot(c.String("root"), "", e.layout.RecordsDir())
	if err != nil {
		return err
	}
	hits, err := recall.Search(recall.SearchOptions{
		Query: query, Root: root, Layout: e.layout, Now: e.now(),
		IncludeArchive: c.Bool("include-archive"), IncludeRetired: c.Bool("include-retired"),
		Limit: c.Int("limit"), Warn: e.stderr,
	})
	if err != nil {
		return fmt.Errorf("records search: %w", err)
	}
	return recall.WriteSearch(e.stdout, query, hits, c.Bool("json"))
}
