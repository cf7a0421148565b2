package main

import (
	"fmt"
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
		Action: runRecordsWrite,
	}
}

// runRecordsWrite reads the flags into a records.WriteRequest (the
// action, the target resolved in the root, the input document read), then
// writes. A flag the command does not accept is a usage error (exit 2); a
// target or an input the records refuse is their error block (exit 1),
// in the order the plugin checks them.
func runRecordsWrite(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	action, ok := records.ParseAction(c.String("action"))
	if !ok {
		return cli.Exit(fmt.Sprintf("zylos-memory: records write: invalid --action %q (choose from %s)",
			c.String("action"), strings.Join(records.Actions, ", ")), 2)
	}
	category := c.String("category")
	if category != "" && !records.ValidCategory(category) {
		return cli.Exit(fmt.Sprintf("zylos-memory: records write: invalid --category %q (choose from %s)",
			category, strings.Join(records.Categories, ", ")), 2)
	}
	root, err := recordsRoot(c, e, c.String("target"))
	if err != nil {
		return err
	}
	req := records.WriteRequest{Action: action, Hash: c.String("hash"), Reason: c.String("reason"),
		Warn: warningsTo(e.stderr)}
	if req.Target, err = records.ResolveTarget(root, e.cwd, c.String("target"), action, category); err != nil {
		return recordsAnswer(e, nil, err)
	}
	if action.TakesInput() {
		if req.Input, err = records.ReadInput(c.String("input"), root); err != nil {
			return recordsAnswer(e, nil, err)
		}
	}
	ans, err := e.home.Save(c.Context, e.home.Command("records write"), req)
	return recordsAnswer(e, ans, err)
}
