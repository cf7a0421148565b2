package main

import (
	"errors"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/bridge"
)

// consolidateOptions is what the consolidate command was asked to do.
type consolidateOptions struct {
	entries bool // append the entry findings to the report as "entries"
	apply   bool // archive what the report names instead of printing it
}

func newConsolidateCommand() *cli.Command {
	return &cli.Command{
		Name:  "consolidate",
		Usage: "print the consolidation report as JSON (consolidate.js)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "entries", Usage: "add the entry findings (old decisions and projects, conflicting preferences, malformed entries), each with the record behind it, as \"entries\""},
			&cli.BoolFlag{Name: "apply", Usage: "archive old sessions, decisions and completed projects; print what was moved"},
		},
		Action: asChange("consolidate", "apply", func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			return runConsolidate(e, consolidateOptions{entries: c.Bool("entries"), apply: c.Bool("apply")})
		}),
	}
}

func runConsolidate(e *env, opts consolidateOptions) error {
	now, err := e.localNow()
	if err != nil {
		return err
	}
	if opts.apply {
		if opts.entries {
			return errors.New("consolidate: --apply and --entries cannot be combined")
		}
		h := e.home.Bridge()
		h.Now = now
		done, ingested, err := bridge.ApplyConsolidation(h, now)
		if werr := done.WriteText(e.stdout); err == nil {
			err = werr
		}
		printChanges(e, ingested)
		return err
	}
	report, err := consolidationReport(e.layout, now)
	if err != nil {
		return err
	}
	if opts.entries {
		findings, err := bridge.Findings(e.home.Bridge(), now)
		if err != nil {
			return err
		}
		report = append(report, tiers.JSField{Key: "entries", Value: findings.JSON()})
	}
	return tiers.WriteIndentedJSON(e.stdout, report)
}

// consolidationReport is the report of the layout's consolidate.js.
func consolidationReport(l tiers.Layout, now time.Time) (tiers.JSObject, error) {
	report, _, err := l.Kind().ConsolidationReport(l, now)
	return report, err
}
