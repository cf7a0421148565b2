package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/records"
)

func newRecordsEnforceCommand() *cli.Command {
	return &cli.Command{
		Name:      "enforce",
		Usage:     "apply the session rolling window: retire the oldest active sessions beyond max_retained",
		UsageText: "zylos-memory records enforce --category session_summary [--max-retained N] [--max-retire N] [--dry-run] [--root R]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "category", Value: "session_summary", Usage: "session_summary"},
			&cli.IntFlag{Name: "max-retained", Usage: "window size (default: categories.session_summary.max_retained, 5)"},
			&cli.IntFlag{Name: "max-retire", Usage: "retire at most N records in this run (default: no cap)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would be retired without retiring anything"},
			&cli.StringFlag{Name: "root", Usage: "records root (default: $ZYLOS_DIR/memory/records)"},
		},
		Action: asChange("records enforce", "", func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			for _, name := range []string{"max-retained", "max-retire"} {
				if c.IsSet(name) && c.Int(name) < 1 {
					return cli.Exit("zylos-memory: records enforce: --"+name+" must be >= 1", 2)
				}
			}
			root, err := enforceRoot(c, e)
			if err != nil {
				return err
			}
			ans, err := records.Enforce(records.EnforceOptions{
				Root: root, Category: c.String("category"), MaxRetained: c.Int("max-retained"),
				MaxRetire: c.Int("max-retire"), DryRun: c.Bool("dry-run"), Now: e.now(), Warn: warnTo(e.stderr),
			})
			return recordsAnswer(e, ans, err)
		}),
	}
}

// enforceRoot is recordsRoot with the plugin's enforce discovery: without
// --root, $CLAUDE_PROJECT_ROOT/.claude/memory or the nearest .claude/memory
// from the working directory up.
func enforceRoot(c *cli.Context, e *env) (string, error) {
	if !c.IsSet("root") {
		cwd, _ := os.Getwd()
		if root, ok := records.FindProjectRoot(os.Getenv("CLAUDE_PROJECT_ROOT"), cwd); ok {
			return root, nil
		}
	}
	return recordsRoot(c, e, "")
}
