package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// mcpHome is a home made by init, with one hand-written decision.
func mcpHome(t testing.TB) string {
	t.Helper()
	zylos := filepath.Join(t.TempDir(), "zylos")
	if res := (testutil.Run{ZylosDir: zylos}).Exec(t, "init"); res.Code != 0 {
		t.Fatalf("init: %+v", res)
	}
	testutil.WriteFile(t, filepath.Join(zylos, "memory", "reference", "decisions.md"), "# Decisions Log\n\n"+
		"### [2026-03-01] Use SQLite for the conversation log\n- **Decision:** SQLite with WAL\n"+
		"- **Context:** embedded database, no server\n- **Status:** active\n")
	return zylos
}

// mcpSession starts `zylos-memory mcp` for the home with the SDK's client
// (which sends initialize) and answers the session and the server's stderr.
func mcpSession(t testing.TB, zylos string, env ...string) (*mcp.ClientSession, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(testutil.MCPBinary(t), "mcp")
	cmd.Env = testutil.Run{ZylosDir: zylos, Env: env}.Environ()
	stderr := &strings.Builder{}
	cmd.Stderr = &lockedBuilder{b: stderr}
	client := mcp.NewClient(&mcp.Implementation{Name: "zylos-memory-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr: %s", err, stderr)
	}
	t.Cleanup(func() { session.Close() })
	return session, stderr
}

type lockedBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// call runs one tool and answers its text and whether it is a tool error;
// a protocol error fails the test.
func call(t testing.TB, s *mcp.ClientSession, tool string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if text, ok := c.(*mcp.TextContent); ok {
			b.WriteString(text.Text)
		}
	}
	return b.String(), res.IsError
}

func mustCall(t testing.TB, s *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	text, isErr := call(t, s, tool, args)
	if isErr {
		t.Fatalf("%s %v: tool error: %s", tool, args, text)
	}
	return text
}

func mustFail(t testing.TB, s *mcp.ClientSession, tool string, args any, want string) {
	t.Helper()
	text, isErr := call(t, s, tool, args)
	if !isErr || !strings.Contains(text, want) {
		t.Errorf("%s %v: want a tool error saying %q, got (error %v) %q", tool, args, want, isErr, text)
	}
}

func TestMCPInitializeAndToolList(t *testing.T) {
	s, _ := mcpSession(t, mcpHome(t))
	init := s.InitializeResult()
	if init.ServerInfo.Name != "zylos-memory" || init.Capabilities.Tools == nil {
		t.Fatalf("initialize answered %+v", init)
	}
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: want the closed-world annotation, got %+v", tool.Name, a)
			continue
		}
		readOnly := tool.Name != "memory_save"
		if a.ReadOnlyHint != readOnly || a.IdempotentHint != readOnly {
			t.Errorf("%s: readOnly %v idempotent %v, want %v", tool.Name, a.ReadOnlyHint, a.IdempotentHint, readOnly)
		}
		if !readOnly && (a.DestructiveHint == nil || *a.DestructiveHint) {
			t.Errorf("memory_save must say it is not destructive (every change is logged): %+v", a)
		}
		if len(tool.Description) > 250 {
			t.Errorf("%s: a %d-byte description costs context on every request", tool.Name, len(tool.Description))
		}
	}
	slices.Sort(names)
	if want := []string{"memory_history", "memory_read", "memory_save", "memory_search", "memory_status"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	schema, _ := json.Marshal(list.Tools[slices.IndexFunc(list.Tools, func(t *mcp.Tool) bool { return t.Name == "memory_save" })].InputSchema)
	if !strings.Contains(string(schema), `"required":["category","title","content"]`) {
		t.Errorf("memory_save's input schema: %s", schema)
	}
}

func TestMCPSaveSearchReadUpdate(t *testing.T) {
	zylos := mcpHome(t)
	s, stderr := mcpSession(t, zylos)
	decisions := filepath.Join(zylos, "memory", "reference", "decisions.md")

	// A search finds the hand-written entry, cited as search cites it.
	out := mustCall(t, s, "memory_search", map[string]any{"query": "sqlite"})
	want := testutil.Run{ZylosDir: zylos}.Exec(t, "search", "sqlite").Stdout
	if out != want {
		t.Errorf("memory_search answered\n%s\nthe search command\n%s", out, want)
	}
	if !strings.Contains(out, "memory/reference/decisions.md:3") {
		t.Errorf("no citation of the entry: %s", out)
	}

	// A create lands as a record and as its markdown entry.
	saved := mustCall(t, s, "memory_save", map[string]any{"category": "decision", "title": "Use cron for schedules",
		"content": map[string]any{"decision": "robfig/cron", "context": "daily rotation", "rationale": []string{"simpler than a loop"}, "status": "accepted"},
		"tags":    []string{"scheduler"}})
	if !strings.Contains(saved, `"status": "created"`) || !strings.Contains(saved, "Entry memory/reference/decisions.md:") {
		t.Fatalf("save answered %s", saved)
	}
	record := filepath.Join(zylos, "memory", "records", "decisions", "use-cron-for-schedules.json")
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("no record: %v", err)
	}
	if !strings.Contains(string(data), `"summary": "Created"`) {
		t.Errorf("the record has no change-log entry:\n%s", data)
	}
	md, _ := os.ReadFile(decisions)
	if !strings.Contains(string(md), "Use cron for schedules\n<!-- id: use-cron-for-schedules -->\n- **Decision:** robfig/cron") {
		t.Errorf("the markdown entry was not rendered:\n%s", md)
	}
	if !strings.Contains(mustCall(t, s, "memory_search", map[string]any{"query": "cron"}), "Use cron for schedules") {
		t.Error("the saved decision is not found by search")
	}

	// A read by id gives the record, its hash and its entry.
	read := mustCall(t, s, "memory_read", map[string]any{"ref": "use-cron-for-schedules"})
	hash := regexp.MustCompile(`hash: ([0-9a-f]{32})`).FindStringSubmatch(read)
	if hash == nil || !strings.Contains(read, "robfig/cron") || !strings.Contains(read, "Entry memory/reference/decisions.md:") ||
		!strings.Contains(read, "Recent history:\n") || !strings.Contains(read, "command=mcp memory_save") {
		t.Fatalf("read answered %s", read)
	}
	// A citation reads the entry and its record.
	line := regexp.MustCompile(`Entry (memory/reference/decisions.md:\d+)`).FindStringSubmatch(read)[1]
	if got := mustCall(t, s, "memory_read", map[string]any{"ref": line}); !strings.Contains(got, "### [2026-03-15] Use cron for schedules") ||
		!strings.Contains(got, hash[1]) {
		t.Errorf("read of %s answered %s", line, got)
	}

	// Updates go through OCC: no hash, a stale hash, then the right one.
	update := map[string]any{"category": "decision", "title": "Use cron for schedules", "target": "use-cron-for-schedules",
		"content": map[string]any{"decision": "robfig/cron v3"}}
	mustFail(t, s, "memory_save", update, "give the hash memory_read answered")
	update["hash"] = strings.Repeat("0", 32)
	mustFail(t, s, "memory_save", update, "OCC_CONFLICT")
	update["hash"] = hash[1]
	if got := mustCall(t, s, "memory_save", update); !strings.Contains(got, `"status": "updated"`) {
		t.Fatalf("update answered %s", got)
	}
	if md, _ := os.ReadFile(decisions); !strings.Contains(string(md), "- **Decision:** robfig/cron v3") {
		t.Errorf("the update did not reach the markdown:\n%s", md)
	}
	mustFail(t, s, "memory_save", update, "OCC_CONFLICT") // the hash read before the update is stale now
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("stderr: %s", stderr)
	}
}

func TestMCPToolErrorsSayWhatToFix(t *testing.T) {
	zylos := mcpHome(t)
	s, _ := mcpSession(t, zylos)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_search", map[string]any{"query": " "}, "give a query"},
		{"memory_search", map[string]any{"query": "sqlite", "tiers": []string{"attic"}}, `unknown tier "attic"`},
		{"memory_search", map[string]any{"query": "sqlite", "since": "yesterday"}, "want YYYY-MM-DD"},
		{"memory_search", map[string]any{"query": "sqlite", "limit": -1}, "limit must be 0 or more"},
		{"memory_search", map[string]any{"query": 5}, `want "string"`},
		{"memory_search", map[string]any{}, `missing properties: ["query"]`},
		{"memory_read", map[string]any{"ref": "no-such-record"}, `no record has id "no-such-record"`},
		{"memory_read", map[string]any{"ref": "../../etc/passwd"}, "inside memory/"},
		{"memory_read", map[string]any{"ref": "/etc/passwd"}, "give a path inside memory/"},
		{"memory_read", map[string]any{"ref": "memory/.state/search.db"}, "no hidden files"},
		{"memory_read", map[string]any{"ref": "memory/reference/decisions.md:99"}, "give a line from 1 to"},
		{"memory_read", map[string]any{"ref": "c4:999"}, "no conversation c4:999"},
		{"memory_save", map[string]any{"category": "diary", "title": "x", "content": map[string]any{}}, `category "diary": choose from`},
		{"memory_save", map[string]any{"category": "decision", "title": "x", "content": map[string]any{"decision": "y"}}, "fix: Add content."},
		{"memory_save", map[string]any{"category": "note", "title": "x", "content": map[string]any{"body": "y"}, "hash": "abc"}, "hash goes with target"},
		{"memory_save", map[string]any{"category": "note", "title": "Use SQLite for the conversation log", "content": map[string]any{"body": "y"},
			"target": "memory/reference/decisions.md"}, "is not a record"},
		{"memory_history", map[string]any{"limit": -1}, "limit must be 0 or more"},
		{"memory_history", map[string]any{"ref": "c4:1"}, "a conversation has no history"},
	} {
		mustFail(t, s, c.tool, c.args, c.want)
	}
	// After all of them the server still answers.
	mustCall(t, s, "memory_status", map[string]any{})
}

// The tools read the journal the history command reads: init's commit,
// the external edit found before a command, a records write with its
// session, a save of its own; and say so when there is none.
func TestMCPStatusAndHistory(t *testing.T) {
	zylos := mcpHome(t)
	mem := filepath.Join(zylos, "memory")
	s, _ := mcpSession(t, zylos, "CLAUDE_CODE_SESSION_ID=s-mcp")
	status := mustCall(t, s, "memory_status", map[string]any{})
	for _, want := range []string{"Core.md budget:", "reference/decisions.md", "Records: none yet",
		"Conversation log (C4): every conversation is summarized", "Last changes:\n"} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	line := `[0-9a-f]{10} \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d) `
	if !regexp.MustCompile(`Last changes:\n` + line + `source=command command=init init: create core.md, .* \+\d+ -0\n$`).MatchString(status) {
		t.Errorf("status does not end with init's commit:\n%s", status)
	}

	// A records write: the hand-written decision first, as an external edit.
	input := filepath.Join(mem, "records", ".staging", "in.json")
	if err := os.MkdirAll(filepath.Dir(input), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, input, `{"title":"Keep the journal","tags":["git"],"content":{"status":"accepted","context":"c","decision":"git","rationale":["r"]}}`)
	res := testutil.Run{ZylosDir: zylos, Env: []string{"CLAUDE_CODE_SESSION_ID=s-42"}}.Exec(t, "records", "write", "--action", "create",
		"--category", "decision", "--input", input, "--target", filepath.Join(mem, "records", "decisions", "keep-the-journal.json"))
	if res.Code != 0 {
		t.Fatalf("records write: %+v", res)
	}
	got := mustCall(t, s, "memory_history", map[string]any{"limit": 2})
	if !regexp.MustCompile(`^` + line + `source=command session=s-42 command=records write records write: create decision keep-the-journal, .* \+\d+ -0\n` +
		line + `source=external external edit: update reference/decisions.md \+\d+ -\d+\n$`).MatchString(got) {
		t.Errorf("history after records write:\n%s", got)
	}
	for _, ref := range []string{"keep-the-journal", "memory/records/decisions/keep-the-journal.json", "records/decisions/keep-the-journal.json"} {
		if got := mustCall(t, s, "memory_history", map[string]any{"ref": ref}); strings.Count(got, "\n") != 1 || !strings.Contains(got, "session=s-42") {
			t.Errorf("history of %s:\n%s", ref, got)
		}
	}
	// A citation names its file; an entry id names the file that holds it.
	for _, ref := range []string{"memory/reference/decisions.md:3", "keep-the-journal"} {
		if got := mustCall(t, s, "memory_history", map[string]any{"ref": ref, "limit": 1}); !strings.Contains(got, "command=records write") {
			t.Errorf("history of %s:\n%s", ref, got)
		}
	}
	if got := mustCall(t, s, "memory_history", map[string]any{"session": "s-42"}); strings.Count(got, "\n") != 1 {
		t.Errorf("history of session s-42:\n%s", got)
	}
	if got := mustCall(t, s, "memory_history", map[string]any{"session": "s-none"}); got != "no changes recorded\n" {
		t.Errorf("history of an unknown session: %q", got)
	}
	mustFail(t, s, "memory_history", map[string]any{"ref": "/etc/passwd"}, "is not a file of the memory the journal keeps")

	// A save is one journal commit of its own, in the server's session.
	mustCall(t, s, "memory_save", map[string]any{"category": "note", "title": "A note", "content": map[string]any{"body": "x"}})
	commit := gitIn(t, mem, "log", "-1", "--format=%s|%(trailers:only,unfold,separator=%x2C )")
	if !strings.HasPrefix(commit, "mcp memory_save: ") || !strings.Contains(commit, "create note a-note") ||
		!strings.HasSuffix(commit, "|Zylos-Source: command, Zylos-Session: s-mcp, Zylos-Command: mcp memory_save\n") {
		t.Errorf("the save's commit: %q", commit)
	}
	if got := gitIn(t, mem, "status", "--porcelain"); got != "" {
		t.Errorf("uncommitted after the save:\n%s", got)
	}
	read := mustCall(t, s, "memory_read", map[string]any{"ref": "a-note"})
	if !regexp.MustCompile(`\nRecent history:\n` + line + `source=command session=s-mcp command=mcp memory_save mcp memory_save: .*create note a-note.* \+\d+ -0\n$`).MatchString(read) {
		t.Errorf("read lacks the save in its history:\n%s", read)
	}
	got = mustCall(t, s, "memory_status", map[string]any{})
	for _, want := range []string{"command=mcp memory_save", "command=records write", "source=external", "Records: Memory Health Report", "NOTE: 1", "Health: GOOD"} {
		if !strings.Contains(got, want) {
			t.Errorf("status lacks %q:\n%s", want, got)
		}
	}

	// No journal: none made yet, or turned off.
	if err := os.RemoveAll(filepath.Join(mem, ".git")); err != nil {
		t.Fatal(err)
	}
	if got := mustCall(t, s, "memory_history", map[string]any{}); got != "no journal in this home (memory/ is not a git repository yet): no history to show\n" {
		t.Errorf("history without a journal: %q", got)
	}
	if res := (testutil.Run{ZylosDir: zylos}).Exec(t, "init", "--journal=false"); res.Code != 0 {
		t.Fatalf("init --journal=false: %+v", res)
	}
	if got := mustCall(t, s, "memory_status", map[string]any{}); !strings.Contains(got, "Last changes:\nno journal in this home (the journal is off") {
		t.Errorf("status with the journal off:\n%s", got)
	}
	if got := mustCall(t, s, "memory_read", map[string]any{"ref": "a-note"}); !strings.HasSuffix(got, "Recent history:\nno journal in this home (the journal is off; `zylos-memory init --journal=true` turns it on): no history to show\n") {
		t.Errorf("read with the journal off:\n%s", got)
	}
}

func TestMCPPanicInOneCallKeepsServing(t *testing.T) {
	s, stderr := mcpSession(t, mcpHome(t), "ZYLOS_MEMORY_TEST_CRASH_AT=mcp-memory_status")
	mustFail(t, s, "memory_status", map[string]any{}, "internal error in memory_status")
	if got := mustCall(t, s, "memory_status", map[string]any{}); !strings.Contains(got, "Core.md budget") {
		t.Errorf("the call after the panic answered %s", got)
	}
	if !strings.Contains(stderr.String(), "goroutine") {
		t.Errorf("the panic's stack is not logged on stderr: %s", stderr)
	}
}

func TestMCPLargeArgument(t *testing.T) {
	zylos := mcpHome(t)
	s, _ := mcpSession(t, zylos)
	big := strings.Repeat("memory ", 10<<20/7)
	mustFail(t, s, "memory_save", map[string]any{"category": "note", "title": "Big", "content": map[string]any{"body": big}}, "a record holds at most 1048576")
	if _, err := os.Stat(filepath.Join(zylos, "memory", "records", "notes", "big.json")); !os.IsNotExist(err) {
		t.Error("the 10 MB note was stored")
	}
	mustFail(t, s, "memory_search", map[string]any{"query": big}, "give a few words (at most 4096 bytes)")
	mustCall(t, s, "memory_status", map[string]any{})
}

func TestMCPConcurrentCalls(t *testing.T) {
	zylos := mcpHome(t)
	s, _ := mcpSession(t, zylos)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan string, 2*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_save", Arguments: map[string]any{
				"category": "note", "title": fmt.Sprintf("Concurrent note %d", i), "content": map[string]any{"body": fmt.Sprintf("body %d", i)}}})
			if err != nil || res.IsError {
				errs <- fmt.Sprintf("save %d: %v %+v", i, err, res)
			}
		}()
		go func() {
			defer wg.Done()
			res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": "sqlite"}})
			if err != nil || res.IsError {
				errs <- fmt.Sprintf("search %d: %v %+v", i, err, res)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	notes, _ := os.ReadFile(filepath.Join(zylos, "memory", "reference", "notes.md"))
	records, _ := filepath.Glob(filepath.Join(zylos, "memory", "records", "notes", "*.json"))
	if got := strings.Count(string(notes), "### Concurrent note"); got != n || len(records) != n {
		t.Errorf("%d entries in notes.md and %d records, want %d each:\n%s", got, len(records), n, notes)
	}
}

// rawMCP starts the server on a new home for a test that writes raw
// lines: its stdin, its stdout, what it logs, and the wait for its end.
func rawMCP(t *testing.T) (io.WriteCloser, io.Reader, *strings.Builder, func() error) {
	t.Helper()
	cmd := exec.Command(testutil.MCPBinary(t), "mcp")
	cmd.Env = testutil.Run{ZylosDir: mcpHome(t)}.Environ()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout, stderr, cmd.Wait
}

// TestMCPMalformedLines writes raw lines: what is not a JSON-RPC message
// gets a parse error, and the session goes on.
func TestMCPMalformedLines(t *testing.T) {
	stdin, stdout, stderr, wait := rawMCP(t)
	defer wait()
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`this is not json {`,
		`42`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"bad"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_status","arguments":{}}}`,
	}
	go func() {
		for _, l := range lines {
			io.WriteString(stdin, l+"\n")
		}
	}()
	r := bufio.NewReader(stdout)
	got := map[string]string{}
	for len(got) < 5 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %v: %v; stderr: %s", got, err, stderr.String())
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Error  *struct{ Code int }
			Result json.RawMessage
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("stdout carries a line that is not JSON-RPC: %q", line)
		}
		key := string(msg.ID)
		if key == "null" {
			key = fmt.Sprintf("null%d", len(got))
		}
		if msg.Error != nil {
			got[key] = fmt.Sprint(msg.Error.Code)
		} else {
			got[key] = "result"
		}
	}
	stdin.Close()
	want := map[string]string{"1": "result", "2": "-32602", "3": "result"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("answer to %s: %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	parseErrors := 0
	for k, v := range got {
		if strings.HasPrefix(k, "null") && v == "-32700" {
			parseErrors++
		}
	}
	if parseErrors != 2 {
		t.Errorf("%d parse errors, want 2: %v", parseErrors, got)
	}
}

func TestMCPWithoutServerBinary(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "zylos-memory")
	data, err := os.ReadFile(testutil.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(alone, "--zylos-dir", t.TempDir(), "mcp")
	cmd.Env = []string{"PATH=/nonexistent", "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "zylos-memory-mcp is not installed beside") || !strings.Contains(string(out), "make install") {
		t.Errorf("mcp without its server binary: %v %s", err, out)
	}
}

// TestMCPConversations: a conversation is read by the c4:ID search cites,
// and the backlog shows in memory_status.
func TestMCPConversations(t *testing.T) {
	zylos := hookHome(t, 31)
	s, _ := mcpSession(t, zylos)
	got := mustCall(t, s, "memory_read", map[string]any{"ref": "c4:5"})
	want := testutil.Run{ZylosDir: zylos}.Exec(t, "c4", "fetch", "--begin", "5", "--end", "5").Stdout
	if got != want {
		t.Errorf("memory_read c4:5 answered\n%s\nc4 fetch\n%s", got, want)
	}
	if status := mustCall(t, s, "memory_status", map[string]any{}); !strings.Contains(status,
		"Conversation log (C4): 31 conversations unsummarized (ids 1-31), over the sync threshold: run the memory sync") {
		t.Errorf("status:\n%s", status)
	}
}

// TestMCPInvalidJSONRPCKeepsTheSession sends lines that are JSON but not
// a JSON-RPC message the server can take, one at a time, each followed by
// a ping: each is answered with an invalid-request error under its own id
// (byte for byte) or under null, never under another id, and the session
// goes on.
func TestMCPInvalidJSONRPCKeepsTheSession(t *testing.T) {
	stdin, stdout, stderr, wait := rawMCP(t)
	defer wait()
	defer stdin.Close()
	r := bufio.NewReader(stdout)
	// send writes line and a ping, and returns what came before the ping's answer.
	n := 0
	send := func(line string) []string {
		t.Helper()
		n++
		ping := fmt.Sprintf(`"ping-%d"`, n)
		io.WriteString(stdin, line+"\n"+`{"jsonrpc":"2.0","id":`+ping+`,"method":"ping"}`+"\n")
		var before []string
		for {
			out, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("after %q the session ended: %v; stderr: %s", line, err, stderr.String())
			}
			if strings.Contains(out, `"id":`+ping+`,"result"`) {
				return before
			}
			before = append(before, strings.TrimSpace(out))
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	invalid := map[string]string{ // the line: the id it must be answered under
		`[]`:                       `null`,
		`{}`:                       `null`,
		`{"id":3,"method":"ping"}`: `3`,
		`{"jsonrpc":"1.0","id":"v1","method":"ping"}`:                               `"v1"`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`:                            `null`,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`:                                `null`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`:                               `null`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`:                               `null`,
		`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`:     `123456789012345678901234567890`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`:                   `9007199254740993`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`:                                `1.5`,
		`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`:                                `1e3`,
		`{"jsonrpc":"2.0","id":7,"method":5}`:                                       `7`,
		`{"jsonrpc":"2.0","id":8,"ID":{"a":1},"method":"ping"}`:                     `8`,
		`{"jsonrpc":"2.0","id":9}`:                                                  `9`,
		`{"jsonrpc":"2.0","method":"ping","params":{},"id":"s","Method":"tools/x"}`: `"s"`,
	}
	for line, id := range invalid {
		got := send(line)
		if len(got) != 1 || !strings.Contains(got[0], `"id":`+id+`,"error":{"code":-32600,`) {
			t.Errorf("%s: answered %q, want one -32600 error under id %s", line, got, id)
		}
	}
	// A batch: one error for each request in it, under its id; nothing for a notification.
	got := send(`[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b","method":"ping"}]`)
	var batch []struct {
		ID    json.RawMessage
		Error struct{ Code int }
	}
	if len(got) != 1 || json.Unmarshal([]byte(got[0]), &batch) != nil || len(batch) != 2 ||
		string(batch[0].ID) != "5" || string(batch[1].ID) != `"b"` || batch[0].Error.Code != -32600 {
		t.Errorf("a batch: answered %q", got)
	}
	// Ids the server carries exactly are answered as they came.
	for line, want := range map[string]string{
		`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`: `{"jsonrpc":"2.0","id":9007199254740992,"result":{}}`,
		`{"jsonrpc":"2.0","id":-42,"method":"ping"}`:              `{"jsonrpc":"2.0","id":-42,"result":{}}`,
		`{"jsonrpc":"2.0","id":"1.5","method":"ping"}`:            `{"jsonrpc":"2.0","id":"1.5","result":{}}`,
	} {
		if got := send(line); len(got) != 1 || got[0] != want {
			t.Errorf("%s: answered %q, want %s", line, got, want)
		}
	}
	// The session goes on: a tool call is answered (it may come after the ping's answer).
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":"status","method":"tools/call","params":{"name":"memory_status","arguments":{}}}`+"\n")
	for {
		out, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer to a tool call after them: %v; stderr: %s", err, stderr.String())
		}
		if strings.Contains(out, `"id":"status","result"`) {
			break
		}
	}
}

// TestMCPSaveTitlesInAnyScript: a title with no ASCII letter gets an id,
// and two titles that share only their ASCII words get two.
func TestMCPSaveTitlesInAnyScript(t *testing.T) {
	zylos := mcpHome(t)
	s, _ := mcpSession(t, zylos)
	titles := []string{"数据库选择", "Выбор базы данных", "🚀🚀", "使用SQLite存储", "使用SQLite检索", "Café au lait"}
	ids := map[string]string{}
	for _, title := range titles {
		saved := mustCall(t, s, "memory_save", map[string]any{"category": "note", "title": title, "content": map[string]any{"body": "about " + title}})
		m := regexp.MustCompile(`"id": "([^"]+)"`).FindStringSubmatch(saved)
		if !strings.Contains(saved, `"status": "created"`) || m == nil {
			t.Errorf("%s: %s", title, saved)
			continue
		}
		if other, dup := ids[m[1]]; dup {
			t.Errorf("%s and %s share the id %s", title, other, m[1])
		}
		ids[m[1]] = title
		if got := mustCall(t, s, "memory_read", map[string]any{"ref": m[1]}); !strings.Contains(got, "about "+title) {
			t.Errorf("read %s (%s): %s", m[1], title, got)
		}
	}
	if ids["cafe-au-lait"] != "Café au lait" {
		t.Errorf("a title of accented Latin letters keeps the plugin's slug: %v", ids)
	}
}

// TestMCPReadsWhatItSaves: a record as large as a save may store is read
// whole, with the hash an update needs.
func TestMCPReadsWhatItSaves(t *testing.T) {
	zylos := mcpHome(t)
	s, _ := mcpSession(t, zylos)
	body := strings.Repeat("a long note line about the storage engine.\n", 20000) // ~860 KB
	saved := mustCall(t, s, "memory_save", map[string]any{"category": "note", "title": "A long note", "content": map[string]any{"body": body}})
	if !strings.Contains(saved, `"status": "created"`) {
		t.Fatalf("save: %.300s", saved)
	}
	read := mustCall(t, s, "memory_read", map[string]any{"ref": "a-long-note"})
	hash := regexp.MustCompile(`hash: ([0-9a-f]{32})`).FindStringSubmatch(read)
	if hash == nil {
		t.Fatalf("read answered no hash: %.500s", read)
	}
	got := mustCall(t, s, "memory_save", map[string]any{"category": "note", "title": "A long note", "target": "a-long-note", "hash": hash[1],
		"content": map[string]any{"body": "now short"}})
	if !strings.Contains(got, `"status": "updated"`) {
		t.Errorf("update with the hash read: %.300s", got)
	}
}

// Two agents' MCP servers save at once: every journal commit holds
// exactly its own save, under its own session; none lands in an external
// edit or in the other session's commit, so undo --session takes back one
// session's saves only.
func TestMCPConcurrentSavesEachTheirOwnCommit(t *testing.T) {
	zylos := mcpHome(t)
	const saves = 16
	var wg sync.WaitGroup
	for _, session := range []string{"sess-a", "sess-b"} {
		s, _ := mcpSession(t, zylos, "CLAUDE_CODE_SESSION_ID="+session)
		for i := 0; i < saves; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mustCall(t, s, "memory_save", map[string]any{"category": "decision", "title": fmt.Sprintf("Decision %d of %s", i, session),
					"content": map[string]any{"decision": "d", "context": "c", "rationale": []string{"r"}, "status": "accepted"}})
			}()
		}
	}
	wg.Wait()
	log := gitIn(t, filepath.Join(zylos, "memory"), "log", "--name-only", "--format=%x1e%s|%(trailers:key=Zylos-Session,valueonly,separator=)")
	counted := map[string]int{}
	for _, rec := range strings.Split(log, "\x1e") {
		head, files, _ := strings.Cut(strings.TrimSpace(rec), "\n")
		subject, session, _ := strings.Cut(head, "|")
		for _, f := range strings.Fields(files) {
			if !strings.HasPrefix(f, "records/decisions/decision-") {
				continue
			}
			if !strings.HasPrefix(subject, "mcp memory_save: ") || !strings.HasSuffix(f, "-of-"+session+".json") {
				t.Errorf("%s in the commit %q of session %q", f, subject, session)
			}
			counted[session]++
		}
	}
	if counted["sess-a"] != saves || counted["sess-b"] != saves {
		t.Errorf("records committed per session: %v, want %d each", counted, saves)
	}
}
