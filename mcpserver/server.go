package mcpserver

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/tiers/home"
)

// Name is the server's name: Claude Code calls its tools
// mcp__zylos-memory__<tool>.
const Name = "zylos-memory"

// Version is the server's version in the initialize answer.
const Version = "1.0.0"

// server is what every tool call shares: the function that opens the
// home for one call, and where the server logs.
type server struct {
	open func() *home.Home
	log  io.Writer
}

// call is one tool call: the home opened for it (its layout, clock,
// settings and session), and where it logs.
type call struct {
	*home.Home
	Log io.Writer
}

// Tools lists the tool names in the order they are registered.
var Tools = []string{"memory_search", "memory_read", "memory_save", "memory_history", "memory_status"}

// New is the MCP server of the memory of the home open opens, once for
// each tool call (the server outlives a change of the home's layout, an
// init run meanwhile), its tools registered. log takes what the server
// logs; nil drops it.
func New(open func() *home.Home, log io.Writer) *mcp.Server {
	if log == nil {
		log = io.Discard
	}
	h := server{open: open, log: log}
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Version: Version}, &mcp.ServerOptions{
		Instructions: "The agent's persistent memory. Search it before answering from memory; save decisions, " +
			"projects, preferences and notes with memory_save.",
	})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	mcp.AddTool(s, &mcp.Tool{Name: "memory_search", Annotations: readOnly,
		Description: "Ranked full-text search over every memory tier and the conversation log. " +
			"Answers each hit's citation, date, tier and excerpt."}, safe(h, "memory_search", call.search))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_read", Annotations: readOnly,
		Description: "Read one memory by citation (memory/reference/decisions.md:12), path, record id or c4:ID: " +
			"its text, its record (with the hash memory_save needs to update it) and recent history."},
		safe(h, "memory_read", call.read))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_save",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(bool), OpenWorldHint: new(bool)},
		Description: "Create a decision, project, preference or note (or another record category), or update one: " +
			"give target and the hash memory_read answered. Schema-checked; the markdown entry is kept in step."},
		safe(h, "memory_save", call.save))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_history", Annotations: readOnly,
		Description: "The changes to one memory (ref) or of one session, newest first, from the memory journal."},
		safe(h, "memory_history", call.history))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_status", Annotations: readOnly,
		Description: "Memory health: files and budgets, the unsummarized conversation backlog, the last changes."},
		safe(h, "memory_status", call.status))
	return s
}

// Serve runs the server (see New) on in and out until in ends or ctx is
// done.
func Serve(ctx context.Context, open func() *home.Home, log io.Writer, in io.Reader, out io.Writer) error {
	if log == nil {
		log = io.Discard
	}
	transport := guardLines(in, out, log)
	err := New(open, log).Run(ctx, transport)
	if ctx.Err() != nil || err == io.EOF {
		return nil
	}
	return err
}

// safe opens the home for one call of a tool and turns the tool's outcome
// into its result: text, or a tool error with the message (which says
// what to fix). A panic becomes that call's error and is logged with its
// stack; the server goes on.
func safe[In any](h server, name string, tool func(call, context.Context, In) (string, error)) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, _ any, _ error) {
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(h.log, "zylos-memory mcp: %s: internal error: %v\n%s", name, r, debug.Stack())
				res = errorResult(fmt.Sprintf("internal error in %s: %v (the server goes on; try again, or use the shell command)", name, r))
			}
		}()
		crashpoint.PanicAt("mcp-" + name)
		text, err := tool(call{Home: h.open(), Log: h.log}, ctx, in)
		if err != nil {
			return errorResult(err.Error()), nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	}
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
