// Command zylos-memory-mcp serves one zylos home's memory as MCP tools over
// stdio (see package mcpserver). `zylos-memory mcp` runs it: it is a
// binary of its own so that the MCP SDK's package initialisation is paid
// by the server alone, not by every hook process of zylos-memory.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/zylos/zylos-memory/mcpserver"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/home"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "zylos-memory mcp: internal error: %v\n", r)
			code = 70
		}
	}()
	flags := flag.NewFlagSet("zylos-memory mcp", flag.ContinueOnError)
	flags.SetOutput(stderr)
	dir := flags.String("zylos-dir", tiers.ZylosDir(os.LookupEnv), "zylos home whose memory to serve")
	if err := flags.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "zylos-memory mcp: unexpected argument %q\nTry: zylos-memory mcp --help\n", flags.Arg(0))
		return 2
	}
	open, err := opener(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "zylos-memory mcp: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mcpserver.Serve(ctx, open, stderr, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "zylos-memory mcp: %v\n", err)
		return 1
	}
	return 0
}

// opener opens the home at dir for one tool call, from the server's
// environment, working directory and clock. It refuses (as every command
// refuses it) a home whose memory paths lead outside it, a clock or a
// layout setting that cannot be read.
func opener(dir string) (func() *home.Home, error) {
	if dir == "" {
		return nil, fmt.Errorf("--zylos-dir is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("zylos dir %q: %w", dir, err)
	}
	cwd, _ := os.Getwd()
	opts := home.Options{ZylosDir: abs, LookupEnv: os.LookupEnv, Cwd: cwd, Conversations: c4sync.OpenConversations}
	first, err := home.Open(opts)
	if err != nil {
		return nil, err
	}
	if err := first.Layout.CheckConfined(); err != nil {
		return nil, err
	}
	// Each tool call opens the home again, its kind detected anew
	// (home.Of pins it again): the server outlives a change of its
	// layout, an init run meanwhile.
	opts.Now = first.Now
	return func() *home.Home { return home.Of(first.Layout, opts) }, nil
}
