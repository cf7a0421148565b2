// Command zylos-memory gives an autonomous Claude Code agent a persistent,
// tiered markdown memory. This package only wires the CLI: each command's
// file parses flags and calls into the package that owns the work.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers"
)

// commandGCPercent is the collector's pace for a command: a command is a
// short process that parses a reference file of a thousand entries into
// a tree of small objects and drops it at once; at the default pace the
// collector runs several times over it, a fifth of an ingest's or a
// render's time. The memory service, long-lived, keeps the default.
const commandGCPercent = 400

func main() {
	cli.VersionPrinter = printVersion
	debug.SetGCPercent(commandGCPercent)
	os.Exit(run(newApp(os.Stdin, os.Stdout, os.Stderr), os.Args))
}

// run executes the CLI and maps every outcome to an exit status: a command's
// own status (cli.Exit), 1 for a user-facing error, 70 for a bug. No panic
// and no stack trace reaches the user.
func run(app *cli.App, args []string) (code int) {
	stderr := app.ErrWriter
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "zylos-memory: internal error: %v\n", r)
			code = 70
		}
	}()
	err := app.Run(journalArgs(args))
	if err == nil {
		return 0
	}
	var exit cli.ExitCoder
	if errors.As(err, &exit) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(stderr, msg)
		}
		return exit.ExitCode()
	}
	fmt.Fprintf(stderr, "zylos-memory: %v\n", err)
	return 1
}

// newCommands lists every command of the binary.
func newCommands() []*cli.Command {
	cmds := []*cli.Command{
		newC4Command(),
		newConsolidateCommand(),
		newDoctorCommand(),
		newHookCommand(),
		newInitCommand(),
		newInjectCommand(),
		newJournalCommand(),
		newMCPCommand(),
		newRecordsCommand(),
		newRotateCommand(),
		newSchedulerCommand(),
		newSyncCommand(),
		newTeamCommand(),
		newUICommand(),
	}
	cmds = append(cmds, searchCommands()...)
	cmds = append(cmds, historyCommands()...)
	return append(cmds, statusCommands()...)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer, extra ...*cli.Command) *cli.App {
	cmds := append(newCommands(), extra...)
	sortByName(cmds) // as help lists them
	for _, c := range cmds {
		setUsageErrors(c)
	}
	return &cli.App{
		Name:    "zylos-memory",
		Usage:   "persistent tiered memory for an autonomous Claude Code agent",
		Version: version,
		Flags: []cli.Flag{
			&cli.StringFlag{
				Name:    "zylos-dir",
				Usage:   "zylos home holding memory/, comm-bridge/ and .claude/",
				EnvVars: []string{"ZYLOS_DIR"},
				Value:   tiers.HomeZylosDir(os.Getenv("HOME")),
			},
		},
		Commands:             cmds,
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		// run decides the exit status; urfave must not call os.Exit itself.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   usageError,
	}
}

func sortByName(cmds []*cli.Command) {
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
}

// usageError turns a flag parsing error into one line with a hint, instead
// of urfave's default of printing the whole help text.
func usageError(c *cli.Context, err error, _ bool) error {
	return fmt.Errorf("%v\nTry: %s --help", err, c.Command.HelpName)
}

func setUsageErrors(c *cli.Command) {
	if c.OnUsageError == nil {
		c.OnUsageError = usageError
	}
	for _, sub := range c.Subcommands {
		setUsageErrors(sub)
	}
}
