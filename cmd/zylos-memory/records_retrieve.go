package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/tiers/fulltext"
	"github.com/zylos/zylos-memory/tiers/recall"
	"github.com/zylos/zylos-memory/tiers/records"
)

// retrieveDeadline keeps the hook well inside Claude Code's timeout even on
// a slow disk; what is not found by then is simply not injected.
const retrieveDeadline = time.Second

// maxHookInput bounds what a hook reads from stdin; larger input is
// treated as invalid and skipped.
const maxHookInput = 8 << 20

func newRecordsRetrieveCommand() *cli.Command {
	return &cli.Command{
		Name:      "retrieve",
		Usage:     "UserPromptSubmit hook: print the memories related to the prompt read as JSON on stdin",
		UsageText: `echo '{"prompt":"..."}' | zylos-memory records retrieve [--root R]`,
		Flags:     []cli.Flag{recallRootFlag()},
		Action:    runRetrieve,
	}
}

// runRetrieve fails open: whatever goes wrong, the prompt reaches the
// agent, at worst without memories (exit 0).
func runRetrieve(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "zylos-memory: retrieve: %v\n", err)
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(e.stdin, maxHookInput+1))
	in, ok := recall.ParseHookInput(data)
	if !ok || len(data) > maxHookInput {
		return nil
	}
	// Without --root, a session whose cwd holds .claude/memory reads that
	// store, as the plugin's hook does; otherwise the zylos home's records.
	explicit := c.String("root")
	if project, ok := records.ProjectRoot(in.CWD); ok && explicit == "" {
		explicit = project
	}
	root, err := records.ResolveRoot(explicit, "", e.layout.RecordsDir())
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(c.Context, retrieveDeadline)
	defer cancel()
	opts := recall.RetrieveOptions{Prompt: in.Prompt, Root: root, Layout: e.layout, Now: e.now(), Warn: e.stderr}
	if binary, err := hooks.Executable(); err == nil {
		opts.Reindex = fulltext.BackgroundReindex(binary, e.layout.ZylosDir)
	}
	out, err := recall.Retrieve(ctx, opts)
	if err != nil {
		fmt.Fprintf(e.stderr, "zylos-memory: retrieve: %v\n", err)
		return nil
	}
	fmt.Fprint(e.stdout, out)
	return nil
}

// recallRootFlag is the --root of the records commands that read memory.
func recallRootFlag() cli.Flag {
	return &cli.StringFlag{Name: "root", Usage: "records root (default: $ZYLOS_DIR/memory/records)"}
}
