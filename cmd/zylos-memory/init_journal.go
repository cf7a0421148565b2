package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/fulltext"
	"github.com/zylos/zylos-memory/tiers/journal"
)

var (
	journalFlag = &cli.BoolFlag{
		Name:  "journal",
		Usage: "keep every change to memory/ as a git commit in memory/.git (on by default); --journal=false turns it off; unset leaves it as it is",
	}
	fromFlag = &cli.StringFlag{
		Name:  "from",
		Usage: "make a new home from a memory journal pushed to this git remote (memory files, records and history)",
	}
)

// initFrom clones the journal at --from into the new home's memory/.
func initFrom(c *cli.Context, e *env) error {
	url := c.String("from")
	if url == "" {
		return nil
	}
	if err := journal.Clone(c.Context, url, e.layout.MemoryDir()); err != nil {
		return fmt.Errorf("init --from: %w", err)
	}
	fmt.Fprintf(e.stdout, "cloned memory/ from %s\n", url)
	return nil
}

// initJournal turns the journal on or off as asked, and rebuilds the
// search index of a home made from a remote.
func initJournal(c *cli.Context, e *env) error {
	j := e.home.Journal()
	if c.IsSet("journal") {
		if err := j.SetOff(!c.Bool("journal")); err != nil {
			return fmt.Errorf("init --journal: %w", err)
		}
	}
	switch {
	case !c.IsSet("journal") && c.String("from") == "":
	case j.Off():
		fmt.Fprintln(e.stdout, "memory journal: off (init --journal=true turns it on)")
	default:
		fmt.Fprintln(e.stdout, "memory journal: on (memory/.git)")
	}
	if c.String("from") != "" {
		start := time.Now()
		if err := fulltext.Rebuild(c.Context, e.home.Index("")); err != nil {
			return fmt.Errorf("init --from: reindex: %w", err)
		}
		fmt.Fprintf(e.stdout, "Search index rebuilt in %s.\n", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func newJournalCommand() *cli.Command {
	return &cli.Command{
		Name:  "journal",
		Usage: "the memory journal's remote: where the memory service pushes memory/.git",
		Subcommands: []*cli.Command{{
			Name:  "remote",
			Usage: "set or show the journal's remote",
			Subcommands: []*cli.Command{{
				Name:      "set",
				Usage:     "push the journal to this git remote (a bare repository, a git server) from now on",
				ArgsUsage: "URL",
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return fmt.Errorf("journal remote set takes one URL")
					}
					e, j, err := journalEnv(c)
					if err != nil {
						return err
					}
					url := c.Args().First()
					if err := j.SetRemote(c.Context, url); err != nil {
						return fmt.Errorf("journal remote set: %w", err)
					}
					fmt.Fprintf(e.stdout, "journal remote: %s\n", url)
					if err := j.Push(c.Context); err != nil {
						fmt.Fprintf(e.stdout, "not pushed yet (%v); the memory service retries\n", err)
						return nil
					}
					fmt.Fprintln(e.stdout, "pushed")
					return nil
				},
			}, {
				Name:  "show",
				Usage: "print the journal's remote and how far it is behind",
				Action: func(c *cli.Context) error {
					e, j, err := journalEnv(c)
					if err != nil {
						return err
					}
					url := j.Remote(c.Context)
					if url == "" {
						fmt.Fprintln(e.stdout, "no journal remote (journal remote set URL)")
						return nil
					}
					fmt.Fprintf(e.stdout, "%s: %d behind\n", url, j.Behind(c.Context))
					return nil
				},
			}},
		}},
	}
}
