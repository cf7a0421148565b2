package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/hooks/guard"
	"github.com/zylos/zylos-memory/tiers/records"
)

// toolHookDeadline bounds reading a tool hook's payload; deciding takes
// microseconds once it is read.
const toolHookDeadline = 500 * time.Millisecond

func newRecordsGuardCommand() *cli.Command {
	return &cli.Command{
		Name:      "guard",
		Usage:     "PreToolUse hook (Write/Edit/MultiEdit/NotebookEdit/Bash): deny direct writes into the records root; always exit 0",
		UsageText: `echo '{"tool_input":{"file_path":"..."}}' | zylos-memory records guard [--root R]`,
		Flags:     []cli.Flag{recallRootFlag()},
		Action: func(c *cli.Context) error {
			return runToolHook(c, "guard", func(in hooks.Input, e *env, opts guard.Options) (any, string) {
				if ans := guard.Decide(in.ToolName, in.ToolInput, in.Cwd, opts); ans != nil {
					return ans, ""
				}
				return nil, ""
			})
		},
	}
}

// toolCheck decides one tool call: an answer for stdout (nil for none)
// and a warning for stderr.
type toolCheck func(in hooks.Input, e *env, opts guard.Options) (answer any, warning string)

// runToolHook reads a PreToolUse/PostToolUse payload and runs check on it. It always exits 0: on any failure the tool call
// proceeds and one line on stderr says why.
func runToolHook(c *cli.Context, name string, check toolCheck) error {
	e, err := envFrom(c)
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "memory %s: %v (allowing)\n", name, err)
		return nil
	}
	ctx, cancel := context.WithTimeout(c.Context, toolHookDeadline)
	defer cancel()
	data, err := hooks.ReadInput(ctx, e.stdin)
	if err != nil || len(data) == 0 {
		if err != nil {
			fmt.Fprintf(e.stderr, "memory %s: %v (allowing)\n", name, err)
		}
		return nil
	}
	in, _ := hooks.ParseInput(data) // a bad field leaves the path empty: allowed
	root, err := records.ResolveRoot(c.String("root"), "", e.layout.RecordsDir())
	if err != nil {
		return nil
	}
	opts := guard.Options{Root: root, Home: os.Getenv("HOME"), Command: e.invocation()}
	answer, warning := check(in, e, opts)
	if warning != "" {
		fmt.Fprintln(e.stderr, warning)
	}
	if answer != nil {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false) // the reason is read by the agent: keep <name> as is
		if err := enc.Encode(answer); err != nil {
			fmt.Fprintf(e.stderr, "memory %s: write answer: %v\n", name, err)
		}
	}
	return nil
}
