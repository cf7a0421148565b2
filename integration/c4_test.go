package integration

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/zylos/zylos-memory/internal/testutil"
	c4sync "github.com/zylos/zylos-memory/sync"
)

// conv is a conversation row a test puts into a C4 database.
type conv struct {
	dir, channel, endpoint, content string
}

var sampleConvs = []conv{
	{"in", "telegram", "8101553026", "Let's use Agent Teams for research."},
	{"out", "telegram", "", "Noted. Agent Teams it is."},
	{"in", "lark", "ou_77", "Two lines:\nsecond line"},
	{"in", "telegram", "8101553026", "See this\n[Attachment: /home/z/zylos/media/photo-1.jpg]"},
	{"out", "lark", "ou_77", "Done."},
}

// c4Home is a zylos home whose C4 database holds convs after the initial
// checkpoint; summary replaces that checkpoint's summary ("" = NULL).
func c4Home(tb testing.TB, convs []conv, summary string) (dir, dbPath string) {
	tb.Helper()
	dir = filepath.Join(tb.TempDir(), "zylos")
	dbPath = filepath.Join(dir, "comm-bridge", "c4.db")
	installChannels(tb, dir, "telegram", "lark", "t")
	if _, err := c4sync.Create(dbPath); err != nil {
		tb.Fatal(err)
	}
	db := rawDB(tb, dbPath)
	defer db.Close()
	var s any = summary
	if summary == "" {
		s = nil
	}
	mustExec(tb, db, `UPDATE checkpoints SET summary = ?, timestamp = '2026-03-01 00:00:00'`, s)
	insertConvs(tb, db, convs)
	return dir, dbPath
}

// installChannels makes the channel skill directories c4 receive requires
// of a message that expects a reply.
func installChannels(tb testing.TB, dir string, channels ...string) {
	tb.Helper()
	for _, ch := range channels {
		if err := os.MkdirAll(filepath.Join(dir, ".claude", "skills", ch), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
}

func rawDB(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

func mustExec(tb testing.TB, db *sql.DB, q string, args ...any) {
	tb.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
}

// queryStrings is the one text column q selects, row by row.
func queryStrings(tb testing.TB, db *sql.DB, q string, args ...any) []string {
	tb.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

func insertConvs(tb testing.TB, db *sql.DB, convs []conv) {
	tb.Helper()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	stmt, err := tx.Prepare(`INSERT INTO conversations (timestamp, direction, channel, endpoint_id, content) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	for i, c := range convs {
		var endpoint any = c.endpoint
		if c.endpoint == "" {
			endpoint = nil
		}
		ts := start.Add(time.Duration(i) * time.Minute).Format("2006-01-02 15:04:05")
		if _, err := stmt.Exec(ts, c.dir, c.channel, endpoint, c.content); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// numbered returns n conversations with distinct content.
func numbered(n int) []conv {
	convs := make([]conv, n)
	for i := range convs {
		convs[i] = conv{"in", "telegram", "42", fmt.Sprintf("message %d", i+1)}
		if i%2 == 1 {
			convs[i].dir, convs[i].endpoint = "out", ""
		}
	}
	return convs
}

// transcript runs each command line and renders what a reader of the
// golden file needs: the command, stdout, stderr and exit code.
func transcript(tb testing.TB, r testutil.Run, cmds ...[]string) []byte {
	tb.Helper()
	var b bytes.Buffer
	for _, args := range cmds {
		res := r.Exec(tb, args...)
		stderr := strings.ReplaceAll(res.Stderr, r.ZylosDir, "$ZYLOS_DIR")
		stdout := strings.ReplaceAll(res.Stdout, r.ZylosDir, "$ZYLOS_DIR")
		fmt.Fprintf(&b, "$ zylos-memory %s\n%s--- stderr\n%s--- exit %d\n\n", strings.Join(args, " "), stdout, stderr, res.Code)
	}
	return b.Bytes()
}

func args(s string) []string { return strings.Fields(s) }

func TestC4Commands(t *testing.T) {
	tests := []struct {
		name    string
		convs   []conv
		summary string
		cmds    [][]string
	}{
		{"empty", nil, "initial", [][]string{
			args("c4 fetch --begin 1 --end 10"), args("c4 unsummarized"), args("c4 session-init"),
			args("c4 threshold-check"), args("sync status"), args("memory-sync fetch --begin 1 --end 10"),
			args("c4 fetch --unsummarized"),
		}},
		{"records", sampleConvs, "Decisions: Agent Teams for research.", [][]string{
			args("c4 fetch --begin 1 --end 5"), args("c4 fetch --begin=2 --end=3"), args("c4 fetch --begin 6 --end 9"),
			args("c4 unsummarized"), args("c4 session-init"), args("sync fetch --begin 1 --end 5"),
		}},
		{"null-summary", sampleConvs[:2], "", [][]string{
			args("c4 fetch --begin 1 --end 2"), args("c4 session-init"),
		}},
		{"under-threshold", numbered(29), "initial", [][]string{
			args("c4 threshold-check"), args("c4 unsummarized"),
		}},
		{"at-threshold", numbered(30), "initial", [][]string{
			args("c4 threshold-check"), args("c4 session-init --threshold 30"),
		}},
		{"over-threshold", numbered(31), "initial", [][]string{
			args("c4 threshold-check"), args("c4 session-init"), args("c4 threshold-check --threshold 31"),
		}},
		{"checkpoints", numbered(8), "initial", [][]string{
			args("c4 checkpoint 3 --summary first"), args("c4 checkpoint create 5"), args("c4 checkpoint 4"),
			args("c4 checkpoint list --limit 2"), args("c4 checkpoint latest"), args("c4 unsummarized"),
			args("c4 session-init"), args("c4 fetch --unsummarized"), args("sync fetch --unsummarized"),
			args("c4 checkpoint"), args("c4 checkpoint abc"), args("c4 checkpoint -1"),
			args("c4 checkpoint list --limit x"),
		}},
		{"receive", nil, "initial", [][]string{
			args("c4 receive --channel telegram --endpoint 42 --content hello"),
			args("c4 receive --no-reply --priority 1 --require-idle --content sync"),
			args("c4 receive --channel lark --priority 4 --content x"),
			args("c4 receive --content x"), args("c4 receive --channel lark"),
			args("c4 receive --channel lark --content no-endpoint"),
			args("c4 receive --channel nosuch --content x"), args("c4 receive --channel ../lark --content x"),
			args("c4 receive --channel telegram --endpoint a;b --content x"),
			args("c4 receive --channel nosuch --no-reply --content unchecked"),
			args("c4 fetch --begin 1 --end 9"),
		}},
		{"bad-args", sampleConvs, "initial", [][]string{
			args("c4 fetch"), args("c4 fetch --begin 1"), args("c4 fetch --begin x --end 2"),
			args("c4 fetch --begin 1.5 --end 2"), args("c4 fetch --begin 5 --end 2"), args("c4 fetch --begin -3 --end 2"),
			args("sync fetch --begin 2"),
		}},
		{"memory-sync", sampleConvs, "initial", [][]string{
			args("memory-sync"), args("sync bogus"), args("sync status"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := c4Home(t, tt.convs, tt.summary)
			got := transcript(t, testutil.Run{ZylosDir: dir}, tt.cmds...)
			testutil.Golden(t, "testdata/c4/"+tt.name+".golden", got)
		})
	}
}

// TestC4DBFlag points every command at a database outside the home, the
// flag given before or after the subcommand.
func TestC4DBFlag(t *testing.T) {
	_, dbPath := c4Home(t, sampleConvs[:1], "elsewhere")
	r := testutil.Run{ZylosDir: filepath.Join(t.TempDir(), "empty-home")}
	for _, cmd := range [][]string{
		{"c4", "--c4-db", dbPath, "fetch", "--begin", "1", "--end", "1"},
		{"c4", "fetch", "--c4-db", dbPath, "--begin", "1", "--end", "1"},
		{"sync", "fetch", "--begin=1", "--c4-db=" + dbPath, "--end=1"},
		{"c4", "session-init", "--c4-db", dbPath},
		{"c4", "checkpoint", "latest", "--c4-db", dbPath},
	} {
		if res := r.Exec(t, cmd...); res.Code != 0 || !strings.Contains(res.Stdout, "elsewhere") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", cmd, res.Code, res.Stdout, res.Stderr)
		}
	}
}

func TestC4SyncPipeline(t *testing.T) {
	dir, _ := c4Home(t, sampleConvs, "initial")
	r := testutil.Run{ZylosDir: dir}
	if err := os.MkdirAll(filepath.Join(dir, "memory", "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "memory", "sessions", "current.md"), []byte("# Session Log: 2026-03-14\n\n**09:00** - old day\n"), 0o644)
	got := transcript(t, r,
		args("sync checkpoint 2 --summary too-early"), // nothing fetched yet
		args("sync run --begin 1 --end 3"),
		args("sync checkpoint 9"), // beyond the newest conversation
		args("sync checkpoint 4"), // 4 was never fetched
		args("c4 unsummarized"),   // a sync that stops here leaves no checkpoint
		args("sync checkpoint 3 --summary first-three"),
		args("sync checkpoint 2"), // below the previous checkpoint
		args("sync fetch --begin 4 --end 50"),
		args("sync checkpoint 5 --summary rest"),
		args("c4 unsummarized"),
	)
	testutil.Golden(t, "testdata/c4/pipeline.golden", got)
	if _, err := os.Stat(filepath.Join(dir, "memory", "sessions", "2026-03-14.md")); err != nil {
		t.Errorf("sync run did not rotate the session log: %v", err)
	}
}

// TestC4SyncRunBadDatabase checks that a sync run on a missing database
// fails before it touches the session log.
func TestC4SyncRunBadDatabase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "zylos")
	current := filepath.Join(dir, "memory", "sessions", "current.md")
	os.MkdirAll(filepath.Dir(current), 0o755)
	os.WriteFile(current, []byte("# Session Log: 2026-03-14\n\n"), 0o644)
	res := (testutil.Run{ZylosDir: dir}).Exec(t, "sync", "run", "--begin", "1", "--end", "3")
	if res.Code != 1 || !strings.Contains(res.Stderr, "c4 database not found") {
		t.Errorf("exit %d, stderr %q", res.Code, res.Stderr)
	}
	if data, _ := os.ReadFile(current); string(data) != "# Session Log: 2026-03-14\n\n" {
		t.Errorf("session log rotated anyway: %q", data)
	}
}

// TestC4SyncRunV07 checks that a sync run in a zylos v0.7 home names that
// layout's files: telling the agent to write core.md would turn the home into
// a v2 home.
func TestC4SyncRunV07(t *testing.T) {
	_, dbPath := c4Home(t, sampleConvs, "initial")
	dir := v07Tree(t, sampleIdentity, sampleState, sampleReferences)
	r := testutil.Run{ZylosDir: dir}
	res := r.Exec(t, "sync", "run", "--c4-db", dbPath, "--begin", "1", "--end", "3")
	if res.Code != 0 {
		t.Fatalf("sync run: %+v", res)
	}
	_, files, _ := strings.Cut(res.Stdout, "[Memory Files to Update]\n")
	files, _, _ = strings.Cut(files, "\n\n")
	mem := filepath.Join(dir, "memory")
	want := strings.Join([]string{
		filepath.Join(mem, "state.md"),
		filepath.Join(mem, "reference", "decisions.md"),
		filepath.Join(mem, "reference", "projects.md"),
		filepath.Join(mem, "reference", "preferences.md"),
		filepath.Join(mem, "reference", "ideas.md"),
		filepath.Join(mem, "sessions", "current.md"),
	}, "\n")
	if files != want {
		t.Errorf("files to update:\n%s\nwant:\n%s", files, want)
	}
}
