package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/journal"
)

// asChange wraps the action of a command that writes memory as one
// change of its home, named as its commits name it (see home.Around);
// writes is the flag without which it only reports ("" when it always
// writes). A journal failure is one line on stderr, once, and never the
// command's failure.
func asChange(name, writes string, action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		e, err := envFrom(c)
		if err != nil || c.Bool("dry-run") || (writes != "" && !c.Bool(writes)) {
			return action(c) // a report or a dry run changes nothing, the journal included
		}
		return e.home.Around(context.Background(), e.home.Command(name), func() error { return action(c) })
	}
}

func historyCommands() []*cli.Command {
	return []*cli.Command{
		&cli.Command{
			Name:      "history",
			Usage:     "the changes of the memory journal, newest first: rev, time, source and session, summary, +added -removed",
			ArgsUsage: "[PATH|RECORD-ID|ENTRY-ID]",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "session", Usage: "only the changes of this Claude Code session"},
				&cli.StringFlag{Name: "since", Usage: "only changes after this time (any form git reads: 2026-05-01, '2 hours ago')"},
				&cli.StringFlag{Name: "until", Usage: "only changes before this time"},
				&cli.IntFlag{Name: "limit", Value: defaultHistory, Usage: "at most this many changes (0: all)"},
				&cli.BoolFlag{Name: "json", Usage: "one JSON array of {rev,time,source,session,tool,command,summary,paths,added,removed}"},
			},
			Action: historyCommand,
		}, &cli.Command{
			Name:      "show",
			Usage:     "a change of the memory journal as a diff, or with PATH the file as it was at REV",
			ArgsUsage: "REV [PATH]",
			Flags:     []cli.Flag{&cli.BoolFlag{Name: "diff", Usage: "with PATH: the change REV made to it, as a diff"}},
			Action:    showCommand,
		}, &cli.Command{
			Name:      "restore",
			Usage:     "put a memory file back as it was at a revision or time, as a new change",
			ArgsUsage: "PATH --at REV|TIME",
			Flags:     []cli.Flag{&cli.StringFlag{Name: "at", Required: true, Usage: "a revision (see history) or a time (2026-05-01 14:00, RFC 3339)"}},
			Action:    restoreCommand,
		}, &cli.Command{
			Name:  "undo",
			Usage: "revert every change one session made, keeping every later change by others",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "session", Required: true, Usage: "the Claude Code session id (see history)"},
				&cli.BoolFlag{Name: "dry-run", Usage: "print what the undo would revert and change, and change nothing"},
			},
			Action: undoCommand,
		},
	}
}

func journalEnv(c *cli.Context) (*env, *journal.Journal, error) {
	e, err := envFrom(c)
	if err != nil {
		return nil, nil, err
	}
	return e, e.home.Journal(), nil
}

// defaultHistory is how many changes history lists unless told: the
// newest, which git finds without walking the whole journal.
const defaultHistory = 50

func historyCommand(c *cli.Context) error {
	if c.NArg() > 1 {
		return fmt.Errorf("history takes at most one PATH, got %d arguments", c.NArg())
	}
	e, j, err := journalEnv(c)
	if err != nil {
		return err
	}
	q := journal.Query{Session: c.String("session"), Since: c.String("since"), Until: c.String("until"), Limit: c.Int("limit")}
	if q.Limit < 0 {
		return fmt.Errorf("--limit %d: want 0 or more", q.Limit)
	}
	if c.NArg() == 1 {
		cwd, _ := os.Getwd()
		if err := j.Select(&q, c.Args().First(), cwd); err != nil {
			return err
		}
	}
	entries, err := j.History(c.Context, q)
	if err != nil {
		return err
	}
	if !c.IsSet("limit") && len(entries) == defaultHistory {
		fmt.Fprintf(e.stderr, "the newest %d changes; --limit 0 lists them all\n", defaultHistory)
	}
	if c.Bool("json") {
		if entries == nil {
			entries = []journal.Entry{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	loc, err := e.location()
	if err != nil {
		return err
	}
	for _, en := range entries {
		fmt.Fprintln(e.stdout, en.Line(loc))
	}
	return nil
}

func showCommand(c *cli.Context) error {
	if c.NArg() < 1 || c.NArg() > 2 {
		return fmt.Errorf("show takes REV [PATH]")
	}
	e, j, err := journalEnv(c)
	if err != nil {
		return err
	}
	var rel string
	if c.NArg() == 2 {
		cwd, _ := os.Getwd()
		if rel, err = j.Rel(c.Args().Get(1), cwd); err != nil {
			return err
		}
	}
	if rel != "" && !c.Bool("diff") {
		data, err := j.Version(c.Context, c.Args().First(), rel)
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(data)
		return err
	}
	out, err := j.Show(c.Context, c.Args().First(), rel)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(e.stdout, out)
	return err
}

func restoreCommand(c *cli.Context) error {
	if c.NArg() != 1 {
		return fmt.Errorf("restore takes one PATH")
	}
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	msg, err := e.home.Restore(c.Context, e.home.Command("restore"), c.Args().First(), c.String("at"))
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, msg)
	return nil
}

func undoCommand(c *cli.Context) error {
	if c.NArg() != 0 {
		return fmt.Errorf("undo takes no arguments (the session is --session ID)")
	}
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	lines, err := e.home.Undo(c.Context, e.home.Command("undo"), c.String("session"), c.Bool("dry-run"))
	if errors.Is(err, journal.ErrNoSession) || errors.Is(err, journal.ErrUnknownSession) || errors.Is(err, journal.ErrUndone) {
		return cli.Exit("zylos-memory: undo: "+err.Error(), 2)
	}
	if err != nil {
		return err
	}
	for _, l := range lines {
		fmt.Fprintln(e.stdout, l)
	}
	return nil
}

// journalValueFlags are the flags of the journal's commands that take a
// value, by command.
var journalValueFlags = map[string]map[string]bool{
	"history": {"session": true, "since": true, "until": true, "limit": true},
	"show":    {},
	"restore": {"at": true},
	"undo":    {"session": true},
}

// journalArgs moves the flags of a journal command given after its
// arguments (`restore memory/core.md --at REV`, as the hooks advise) in
// front of them, where urfave/cli reads flags.
func journalArgs(args []string) []string {
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "--zylos-dir" {
			i++
		}
		i++
	}
	if i >= len(args) {
		return args
	}
	values, ok := journalValueFlags[args[i]]
	if !ok {
		return args
	}
	var flags, rest []string
	for k := i + 1; k < len(args); k++ {
		a := args[k]
		switch {
		case a == "--":
			rest = append(rest, args[k:]...)
			k = len(args)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && values[name] && k+1 < len(args) {
				k++
				flags = append(flags, args[k])
			}
		default:
			rest = append(rest, a)
		}
	}
	out := append(append([]string(nil), args[:i+1]...), flags...)
	return append(out, rest...)
}
