package main

import (
	"flag"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"
)

// schedArgs is a subcommand's flags and arguments with flags allowed after
// the arguments too (`scheduler add "prompt" --every 2h`, as the Node CLI
// takes them); urfave/cli v2 stops parsing flags at the first argument.
type schedArgs struct {
	c    *cli.Context
	late *flag.FlagSet
	seen map[string]bool
	args []string
}

func parseSchedArgs(c *cli.Context) (*schedArgs, error) {
	a := &schedArgs{c: c, late: flag.NewFlagSet(c.Command.Name, flag.ContinueOnError), seen: map[string]bool{}}
	a.late.SetOutput(io.Discard)
	for _, f := range c.Command.Flags {
		if err := f.Apply(a.late); err != nil {
			return nil, err
		}
	}
	rest := c.Args().Slice()
	for len(rest) > 0 {
		if err := a.late.Parse(rest); err != nil {
			return nil, err
		}
		if rest = a.late.Args(); len(rest) > 0 {
			a.args = append(a.args, rest[0])
			rest = rest[1:]
		}
	}
	a.late.Visit(func(f *flag.Flag) { a.seen[f.Name] = true })
	return a, nil
}

func (a *schedArgs) String(name string) string {
	if a.seen[name] {
		return a.late.Lookup(name).Value.String()
	}
	return a.c.String(name)
}

func (a *schedArgs) Bool(name string) bool {
	if a.seen[name] {
		b, _ := strconv.ParseBool(a.late.Lookup(name).Value.String())
		return b
	}
	return a.c.Bool(name)
}

func (a *schedArgs) Int(name string) int {
	if a.seen[name] {
		n, _ := strconv.Atoi(a.late.Lookup(name).Value.String())
		return n
	}
	return a.c.Int(name)
}

func (a *schedArgs) NArg() int     { return len(a.args) }
func (a *schedArgs) First() string { return append(a.args, "")[0] }
