package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/fulltext"
)

func searchCommands() []*cli.Command {
	return []*cli.Command{
		&cli.Command{
			Name:  "search",
			Usage: "ranked full-text search over every tier of memory and the C4 conversation log",
			UsageText: "zylos-memory search QUERY [--json] [--limit N] [--tier " + strings.Join(fulltext.Tiers, "|") +
				"]... [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--include-retired]",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "json", Usage: "print a JSON array"},
				&cli.IntFlag{Name: "limit", Value: 10, Usage: "most results to show (0: all)"},
				&cli.StringSliceFlag{Name: "tier", Usage: "search only this tier (repeatable): " + strings.Join(fulltext.Tiers, ", ")},
				&cli.StringFlag{Name: "since", Usage: "only what is dated on or after this day"},
				&cli.StringFlag{Name: "until", Usage: "only what is dated on or before this day"},
				&cli.BoolFlag{Name: "include-retired", Usage: "also retired and archived records and superseded decisions"},
			},
			Action: runFullSearch,
		},
		&cli.Command{
			Name:  "reindex",
			Usage: "rebuild the search index (memory/.state/search.db) from memory and C4",
			Action: func(c *cli.Context) error {
				e, err := envFrom(c)
				if err != nil {
					return err
				}
				start := time.Now()
				if err := fulltext.Rebuild(c.Context, e.home.Index("")); err != nil {
					return fmt.Errorf("reindex: %w", err)
				}
				fmt.Fprintf(e.stdout, "Search index rebuilt in %s.\n", time.Since(start).Round(time.Millisecond))
				return nil
			},
		},
	}
}

func runFullSearch(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	q, err := searchQuery(c)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	q.Now = e.now()
	ix, warnings, err := fulltext.OpenFresh(c.Context, e.home.Index(""), fulltext.Options{})
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer ix.Close()
	for _, w := range warnings {
		fmt.Fprintln(e.stderr, "zylos-memory: warning:", w)
	}
	hits, err := ix.Search(c.Context, q)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return fulltext.WriteHits(e.stdout, q.Text, hits, c.Bool("json"))
}

// searchQuery checks the arguments and flags of search.
func searchQuery(c *cli.Context) (fulltext.Query, error) {
	words, err := queryAndLateFlags(c)
	if err != nil {
		return fulltext.Query{}, err
	}
	q := fulltext.Query{Text: strings.Join(words, " "), Limit: c.Int("limit"),
		Tiers: c.StringSlice("tier"), Since: c.String("since"), Until: c.String("until"),
		IncludeRetired: c.Bool("include-retired"), IncludeArchived: c.Bool("include-retired")}
	return q, q.Check()
}
