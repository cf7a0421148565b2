package mcpserver

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/home"
)

// Name is the server's name: Claude Code calls its tools
// mcp__zylos-memory__<tool>.
const Name = "zylos-memory"

// Version is the server's version in the initialize answer.
const Version = "1.0.0"

// Home is what the tools work on: one zylos home, its clock, and where
// the server logs.
type Home struct {
	Layout tiers.Layout
	Now    func() time.Time
	Log    io.Writer
	// Session is the Claude Code session the server serves, when its
	// environment names one (journal.SessionVar): its saves carry it.
	Session string
	// Open opens the home for one tool call: its kind detected, its
	// settings read from the server's environment. nil opens Layout on
	// Now with the layout's own settings.
	Open func() *home.Home
}

// open is the home one tool call works on.
func (h Home) open() *home.Home {
	if h.Open != nil {
		return h.Open()
	}
	o := home.Of(h.Layout, home.Options{Now: h.Now})
	o.Session = h.Session
	return o
}

// Tools lists the tool names in the order they are registered.
var Tools = []string{"memory_search", "memory_read", "memory_save", "memory_history", "memory_status"}

// New is the MCP server of home's memory, its tools registered.
func New(h Home) *mcp.Server {
	if h.Log == nil {
		h.Log = io.Discard
	}
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Version: Version}, &mcp.ServerOptions{
		Instructions: "The agent's persistent memory. Search it before answering from memory; save decisions, " +
			"projects, preferences and notes with memory_save.",
	})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	mcp.AddTool(s, &mcp.Tool{Name: "memory_search", Annotations: readOnly,
		Description: "Ranked full-text search over every memory tier and the conversation log. " +
			"Answers each hit's citation, date, tier and excerpt."}, safe(h, "memory_search", h.search))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_read", Annotations: readOnly,
		Description: "Read one memory by citation (memory/reference/decisions.md:12), path, record id or c4:ID: " +
			"its text, its record (with the hash memory_save needs to update it) and recent history."},
		safe(h, "memory_read", h.read))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_save",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(bool), OpenWorldHint: new(bool)},
		Description: "Create a decision, project, preference or note (or another record category), or update one: " +
			"give target and the hash memory_read answered. Schema-checked; the markdown entry is kept in step."},
		safe(h, "memory_save", h.save))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_history", Annotations: readOnly,
		Description: "The changes to one memory (ref) or of one session, newest first, from the memory journal."},
		safe(h, "memory_history", h.history))
	mcp.AddTool(s, &mcp.Tool{Name: "memory_status", Annotations: readOnly,
		Description: "Memory health: files and budgets, the unsummarized conversation backlog, the last changes."},
		safe(h, "memory_status", h.status))
	return s
}

// Serve runs the server on in and out until in ends or ctx is done.
func Serve(ctx context.Context, h Home, in io.Reader, out io.Writer) error {
	transport := guardLines(in, out, h.Log)
	err := New(h).Run(ctx, transport)
	if ctx.Err() != nil || err == io.EOF {
		return nil
	}
	return err
}

// safe turns a tool's outcome into its result: text, or a tool error with
// the message (which says what to fix). A panic becomes that call's error
// and is logged with its stack; the server goes on.
func safe[In any](h Home, name string, tool func(context.Context, In) (string, error)) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, _ any, _ error) {
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(h.Log, "zylos-memory mcp: %s: internal error: %v\n%s", name, r, debug.Stack())
				res = errorResult(fmt.Sprintf("internal error in %s: %v (the server goes on; try again, or use the shell command)", name, r))
			}
		}()
		crashpoint.PanicAt("mcp-" + name)
		text, err := tool(ctx, in)
		if err != nil {
			return errorResult(err.Error()), nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	}
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
