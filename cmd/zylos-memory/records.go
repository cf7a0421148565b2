package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/records"
)

func newRecordsCommand() *cli.Command {
	return &cli.Command{
		Name:  "records",
		Usage: "the structured JSON memory records: write, index, draft, enforce, candidate, retrieve, search",
		Subcommands: []*cli.Command{
			newRecordsCandidateCommand(),
			newRecordsDraftCommand(),
			newRecordsEnforceCommand(),
			newRecordsGuardCommand(),
			newRecordsIndexCommand(),
			newRecordsIngestCommand(),
			newRecordsRetrieveCommand(),
			newRecordsSearchCommand(),
			newRecordsTriageCommand(),
			newRecordsValidateCommand(),
			newRecordsWriteCommand(),
		},
	}
}

// recordsRoot resolves --root (or a target under .claude/memory) against
// the default $ZYLOS_DIR/memory/records. A command without a target run
// from a project holding .claude/memory uses that store, the plugin's
// default root.
func recordsRoot(c *cli.Context, e *env, target string) (string, error) {
	explicit := c.String("root")
	if explicit == "" && target == "" {
		if cwd, err := os.Getwd(); err == nil {
			explicit, _ = records.ProjectRoot(cwd)
		}
	}
	return records.ResolveRoot(explicit, target, e.layout.RecordsDir())
}

// warnTo returns a line printer on w for records' notes and warnings.
func warnTo(w io.Writer) func(string) {
	return func(s string) { fmt.Fprintln(w, s) }
}

// warningsTo prints a write's warnings to w, a line each.
func warningsTo(w io.Writer) func(records.Warning) {
	return func(warning records.Warning) { fmt.Fprintln(w, warning.String()) }
}

// recordsAnswer prints an operation's outcome: the answer on stdout, or a
// records error block on stdout with exit 1 (as the plugin does); other
// errors go the usual way.
func recordsAnswer(e *env, ans fmt.Stringer, err error) error {
	return recordsAnswerBlocksOn(e, e.stdout, ans, err)
}

// recordsAnswerBlocksOn is recordsAnswer with the error block printed on
// blocks instead.
func recordsAnswerBlocksOn(e *env, blocks io.Writer, ans fmt.Stringer, err error) error {
	var rerr *records.Error
	if errors.As(err, &rerr) {
		fmt.Fprint(blocks, rerr.Block())
		return cli.Exit("", 1)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, ans.String())
	return nil
}
