package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/recall"
)

func newRecordsSearchCommand() *cli.Command {
	return &cli.Command{
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
	}
}

func runSearch(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	words, err := queryAndLateFlags(c)
	if err != nil {
		return fmt.Errorf("records search: %w", err)
	}
	query := strings.Join(words, " ")
	if strings.TrimSpace(query) == "" {
		return fmt.Errorf("records search: give a QUERY")
	}
	if c.Int("limit") < 0 {
		return fmt.Errorf("records search: --limit must be 0 or more")
	}
	root, err := recordsRoot(c, e, "")
	if err != nil {
		return err
	}
	hits, err := recall.Search(c.Context, recall.SearchOptions{
		Query: query, Root: root, Layout: e.layout, Now: e.now(),
		IncludeArchive: c.Bool("include-archive"), IncludeRetired: c.Bool("include-retired"),
		Limit: c.Int("limit"), Warn: e.stderr,
	})
	if err != nil {
		return fmt.Errorf("records search: %w", err)
	}
	return recall.WriteSearch(e.stdout, query, hits, c.Bool("json"))
}

// queryAndLateFlags returns the QUERY words and applies the flags given
// after them: urfave/cli stops parsing flags at the first argument, but
// "search QUERY --include-archive" is how the usage reads.
func queryAndLateFlags(c *cli.Context) ([]string, error) {
	var words []string
	args := c.Args().Slice()
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			return append(words, args[i+1:]...), nil
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			words = append(words, arg)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		flag := commandFlag(c, name)
		switch {
		case flag == nil:
			return nil, fmt.Errorf("flag provided but not defined: %s", arg)
		case hasValue:
		case isBoolFlag(flag):
			value = "true"
		case i+1 == len(args):
			return nil, fmt.Errorf("flag needs an argument: %s", arg)
		default:
			i++
			value = args[i]
		}
		if err := c.Set(name, value); err != nil {
			return nil, fmt.Errorf("%s: %w", arg, err)
		}
	}
	return words, nil
}

// commandFlag is the flag of c's command named name, or nil.
func commandFlag(c *cli.Context, name string) cli.Flag {
	for _, f := range c.Command.Flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func isBoolFlag(f cli.Flag) bool {
	_, ok := f.(*cli.BoolFlag)
	return ok
}
