package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/records"
)

func newRecordsWriteCommand() *cli.Command {
	return &cli.Command{
		Name:  "write",
		Usage: "create, update, retire, archive, unarchive or restore one record (schema-checked, locked, atomic)",
		UsageText: "zylos-memory records write --action create|update|retire|delete|archive|unarchive|restore" +
			" --target PATH [--category C] [--input FILE] [--hash MD5] [--reason TEXT] [--root R]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "action", Required: true, Usage: strings.Join(records.Actions, "|")},
			&cli.StringFlag{Name: "target", Required: true, Usage: "record file, e.g. memory/records/decisions/use-jwt.json"},
			&cli.StringFlag{Name: "category", Usage: strings.Join(records.Categories, "|") + " (required for create)"},
			&cli.StringFlag{Name: "input", Usage: "JSON input: /tmp/.memory-write-pending*.json or <root>/.staging/*"},
			&cli.StringFlag{Name: "hash", Usage: "MD5 of the target as read, for update (optimistic concurrency)"},
			&cli.StringFlag{Name: "reason", Usage: "reason for retire/archive"},
			&cli.StringFlag{Name: "root", Usage: "records root (default: $ZYLOS_DIR/memory/records)"},
		},
		Action: journaled("records write", "", runRecordsWrite),
	}
}

func runRecordsWrite(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	opts := records.WriteOptions{
		Action:   c.String("action"),
		Target:   c.String("target"),
		Category: c.String("category"),
		Input:    c.String("input"),
		Hash:     c.String("hash"),
		Reason:   c.String("reason"),
		Cwd:      e.cwd,
		Now:      e.now(),
		Warn:     warnTo(e.stderr),
	}
	if !slices.Contains(records.Actions, opts.Action) {
		return cli.Exit(fmt.Sprintf("zylos-memory: records write: invalid --action %q (choose from %s)",
			opts.Action, strings.Join(records.Actions, ", ")), 2)
	}
	if opts.Category != "" && !records.ValidCategory(opts.Category) {
		return cli.Exit(fmt.Sprintf("zylos-memory: records write: invalid --category %q (choose from %s)",
			opts.Category, strings.Join(records.Categories, ", ")), 2)
	}
	if opts.Root, err = recordsRoot(c, e, opts.Target); err != nil {
		return err
	}
	opts.View = e.recordsView(opts.Root)
	ans, err := records.Write(opts)
	return recordsAnswer(e, ans, err)
}
