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
	home, err := homeOf(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "zylos-memory mcp: %v\n", err)
		return 1
	}
	home.Log = stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mcpserver.Serve(ctx, home, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "zylos-memory mcp: %v\n", err)
		return 1
	}
	return 0
}

// homeOf is the home at dir, refused (as every command refuses it) when
// its memory paths lead outside it.
func homeOf(dir string) (mcpserver.Home, error) {
	if dir == "" {
		return mcpserver.Home{}, fmt.Errorf("--zylos-dir is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return mcpserver.Home{}, fmt.Errorf("zylos dir %q: %w", dir, err)
	}
	layout := tiers.Layout{ZylosDir: abs, TZ: os.Getenv("TZ"), LayoutEnv: os.Getenv(tiers.LayoutVar)}
	if err := layout.CheckConfined(); err != nil {
		return mcpserver.Home{}, err
	}
	now, err := tiers.Clock(os.LookupEnv)
	if err != nil {
		return mcpserver.Home{}, err
	}
	cwd, _ := os.Getwd()
	opts := home.Options{LookupEnv: os.LookupEnv, Cwd: cwd, Now: now}
	// Each tool call opens the home again: the server outlives a change
	// of its layout (an init run meanwhile).
	open := func() *home.Home { return home.Of(layout, opts) }
	return mcpserver.Home{Layout: layout, Now: now, Session: open().Session, Open: open}, nil
}
