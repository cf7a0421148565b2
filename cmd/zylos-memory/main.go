// Command zylos-memory gives an autonomous Claude Code agent a persistent,
// tiered markdown memory. This package only wires the CLI: each command's
// file parses flags and calls into the package that owns the work.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers"
)

// commands is filled by each command file's init, so adding a command
// touches only its own file.
var (
	commands    []*cli.Command
	subcommands = map[string][]*cli.Command{}
)

func register(cmds ...*cli.Command) { commands = append(commands, cmds...) }

// registerSub adds subcommands to the command named parent, so a command
// tree can be spread over one file per subcommand.
func registerSub(parent string, cmds ...*cli.Command) {
	subcommands[parent] = append(subcommands[parent], cmds...)
}

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run executes the CLI and maps every outcome to an exit status: a command's
// own status (cli.Exit), 1 for a user-facing error, 70 for a bug. No panic
// and no stack trace reaches the user.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "zylos-memory: internal error: %v\n", r)
			code = 70
		}
	}()
	err := newApp(stdin, stdout, stderr).Run(journalArgs(args))
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

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	cmds := append([]*cli.Command(nil), commands...)
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	for _, c := range cmds {
		if subs := subcommands[c.Name]; len(subs) > 0 {
			c.Subcommands = append(c.Subcommands, subs...)
			sort.Slice(c.Subcommands, func(i, j int) bool { return c.Subcommands[i].Name < c.Subcommands[j].Name })
			delete(subcommands, c.Name)
		}
		setUsageErrors(c)
	}
	journalCommands(cmds, "")
	return &cli.App{
		Name:  "zylos-memory",
		Usage: "persistent tiered memory for an autonomous Claude Code agent",
		Flags: []cli.Flag{
			&cli.StringFlag{
				Name:    "zylos-dir",
				Usage:   "zylos home holding memory/, comm-bridge/ and .claude/",
				EnvVars: []string{"ZYLOS_DIR"},
				Value:   tiers.DefaultZylosDir(),
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
