package main

import (
	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/records"
)

func newRecordsDraftCommand() *cli.Command {
	return &cli.Command{
		Name:  "draft",
		Usage: "assemble a complete record from a partial input into <root>/.staging/draft-*.json",
		UsageText: "zylos-memory records draft --action create|update --category C --input-file F" +
			" [--candidate-file PATH] [--root R]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "action", Required: true, Usage: "create|update"},
			&cli.StringFlag{Name: "category", Required: true},
			&cli.StringFlag{Name: "input-file", Required: true, Usage: "partial input in <root>/.staging/ (or /tmp/.memory-write-pending*.json)"},
			&cli.StringFlag{Name: "candidate-file", Usage: "record being updated (update only)"},
			&cli.StringFlag{Name: "root", Usage: "records root (default: $ZYLOS_DIR/memory/records)"},
		},
		Action: func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			root, err := recordsRoot(c, e, c.String("input-file"))
			if err != nil {
				return err
			}
			ans, err := records.Draft(records.DraftOptions{
				Root: root, Action: c.String("action"), Category: c.String("category"),
				InputFile: c.String("input-file"), CandidateFile: c.String("candidate-file"),
				RootArg: c.String("root"), Cwd: e.cwd, Now: e.now(), Warn: warnTo(e.stderr),
			})
			// The plugin's draft prints its error blocks on stderr.
			return recordsAnswerBlocksOn(e, e.stderr, ans, err)
		},
	}
}
