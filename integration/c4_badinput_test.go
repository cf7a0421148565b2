package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// readCommands are the commands that must never change the database.
var readCommands = [][]string{
	args("c4 fetch --begin 1 --end 5"), args("c4 unsummarized"), args("c4 session-init"),
	args("c4 threshold-check --threshold 1"), args("c4 checkpoint list"), args("c4 checkpoint latest"),
	args("sync status"),
}

func TestC4ReadCommandsNeverWrite(t *testing.T) {
	dir, dbPath := c4Home(t, sampleConvs, "initial")
	before, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(dbPath, old, old); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range readCommands {
		if res := (testutil.Run{ZylosDir: dir}).Exec(t, cmd...); res.Code != 0 {
			t.Fatalf("%v: exit %d: %s", cmd, res.Code, res.Stderr)
		}
	}
	after, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("a read command changed the database bytes")
	}
	if info, _ := os.Stat(dbPath); !info.ModTime().Equal(old) {
		t.Errorf("a read command changed the mtime: %v", info.ModTime())
	}
	entries, _ := os.ReadDir(filepath.Dir(dbPath))
	for _, e := range entries {
		if e.Name() != "c4.db" {
			t.Errorf("a read command left %s beside the database", e.Name())
		}
	}
}

func TestC4BadDatabases(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dbPath string)
		want  string
	}{
		{"corrupt", func(t *testing.T, p string) {
			os.WriteFile(p, bytes.Repeat([]byte("garbage!"), 4096), 0o644)
		}, "is corrupt or not a database"},
		{"truncated", func(t *testing.T, p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)/2], 0o644)
		}, "c4 db $DB"},
		{"no-tables", func(t *testing.T, p string) {
			db := rawDB(t, p)
			mustExec(t, db, `DROP TABLE conversations`)
			db.Close()
		}, "has no conversations/checkpoints tables"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, dbPath := c4Home(t, sampleConvs, "initial")
			tc.setup(t, dbPath)
			want := strings.ReplaceAll(tc.want, "$DB", dbPath)
			for _, cmd := range append(readCommands, args("c4 receive --channel t --content x"), args("c4 receive --no-reply --content x"),
				args("c4 checkpoint 2")) {
				res := (testutil.Run{ZylosDir: dir}).Exec(t, cmd...)
				if res.Code != 1 || !strings.Contains(res.Stderr, want) || strings.Count(res.Stderr, "\n") != 1 {
					t.Errorf("%v: exit %d, stderr %q; want one line containing %q", cmd, res.Code, res.Stderr, want)
				}
			}
		})
	}
}

// TestC4LockedDatabase holds a write lock from another connection: a writing
// command waits busy_timeout, then fails with a clear message; readers are
// not blocked (WAL).
func TestC4LockedDatabase(t *testing.T) {
	dir, dbPath := c4Home(t, sampleConvs, "initial")
	db := rawDB(t, dbPath)
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), `ROLLBACK`)
	r := testutil.Run{ZylosDir: dir}
	res := r.Exec(t, "c4", "receive", "--channel", "t", "--content", "x")
	if res.Code != 1 || !strings.Contains(res.Stderr, "is locked by another writer (waited 5000 ms)") {
		t.Errorf("receive under lock: exit %d, stderr %q", res.Code, res.Stderr)
	}
	if res := r.Exec(t, "c4", "unsummarized"); res.Code != 0 {
		t.Errorf("unsummarized under a write lock: exit %d, %s", res.Code, res.Stderr)
	}
}

// TestC4HostileContent stores invalid UTF-8 and NUL bytes and reads them
// back byte for byte; a 10 MB message goes whole into its attachment file
// and the database holds its preview, as c4-receive.js does.
func TestC4HostileContent(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 10<<20/16)
	contents := []string{"bad \xff\xfe utf-8", "nul \x00 inside"}
	dir, _ := c4Home(t, nil, "initial")
	r := testutil.Run{ZylosDir: dir}
	for i, content := range append(contents, big) {
		r.Stdin = content
		res := r.Exec(t, "c4", "receive", "--channel", "t", "--no-reply", "--content", "-")
		want := fmt.Sprintf("[C4] Message queued (id=%d, priority=3)\n", i+1)
		if content == big {
			want = "[C4] Message queued (id=3, priority=3, file)\n"
		}
		if res.Stdout != want || res.Code != 0 {
			t.Fatalf("receive %d: %q %q", i, res.Stdout, res.Stderr)
		}
	}
	r.Stdin = ""
	res := r.Exec(t, "c4", "fetch", "--begin", "1", "--end", "2")
	want := "[Last Checkpoint Summary] initial\n\n[Conversations] (id 1 ~ 2)\n"
	for i, content := range contents {
		if i > 0 {
			want += "\n"
		}
		want += "[2026-03-15 10:30:00] IN (t):\n" + content + "\n"
	}
	if res.Stdout != want+"\n" {
		t.Errorf("fetch did not return the content verbatim (got %q, want %q)", res.Stdout, want+"\n")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "comm-bridge", "attachments", "*", "message.txt"))
	if len(files) != 1 {
		t.Fatalf("attachments: %v", files)
	}
	if data, _ := os.ReadFile(files[0]); string(data) != big {
		t.Errorf("attachment holds %d bytes, want the %d of the message", len(data), len(big))
	}
	res = r.Exec(t, "c4", "fetch", "--begin", "3", "--end", "3")
	preview := "[2026-03-15 10:30:00] IN (t):\n" + big[:100] + "...\n\n[C4] Full message (10240.0KB) at: " + files[0] + "\n"
	if !strings.Contains(res.Stdout, preview) {
		t.Errorf("fetch of the large message:\n%s\nwant it to hold:\n%s", res.Stdout, preview)
	}
}

// TestC4ConcurrentWriters runs receives and checkpoints from several
// processes at once: every message gets its own id and no checkpoint
// overlaps another.
func TestC4ConcurrentWriters(t *testing.T) {
	dir, dbPath := c4Home(t, nil, "initial")
	const procs, each = 4, 5
	var wg sync.WaitGroup
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			r := testutil.Run{ZylosDir: dir}
			for i := 0; i < each; i++ {
				res := r.Exec(t, "c4", "receive", "--channel", "t", "--content", fmt.Sprintf("p%d-%d", p, i))
				if res.Code != 0 {
					t.Errorf("receive: %s", res.Stderr)
				}
				r.Exec(t, "c4", "checkpoint", fmt.Sprint(p*each+i+1))
			}
		}(p)
	}
	wg.Wait()
	db := rawDB(t, dbPath)
	defer db.Close()
	var n, distinct int
	db.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT content) FROM conversations`).Scan(&n, &distinct)
	if n != procs*each || distinct != n {
		t.Errorf("rows %d distinct %d, want %d", n, distinct, procs*each)
	}
	var overlaps int
	db.QueryRow(`SELECT COUNT(*) FROM checkpoints a JOIN checkpoints b ON a.id < b.id
 WHERE b.start_conversation_id <= a.end_conversation_id`).Scan(&overlaps)
	if overlaps != 0 {
		t.Errorf("%d overlapping checkpoints", overlaps)
	}
}

// TestC4NewerNodeSchema runs the commands on a database as a newer Node C4
// leaves it: extra columns, a 'running' status, more tables, rollback
// journal. Everything works and nothing of theirs is touched.
func TestC4NewerNodeSchema(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "zylos")
	dbPath := filepath.Join(dir, "comm-bridge", "c4.db")
	os.MkdirAll(filepath.Dir(dbPath), 0o755)
	installChannels(t, dir, "lark")
	db := rawDB(t, dbPath)
	for _, q := range []string{
		`CREATE TABLE conversations (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP,
 direction TEXT NOT NULL, channel TEXT NOT NULL, endpoint_id TEXT, content TEXT NOT NULL, status TEXT DEFAULT 'pending',
 priority INTEGER DEFAULT 3, require_idle INTEGER DEFAULT 0, retry_count INTEGER DEFAULT 0, delivery_action TEXT, reply_to INTEGER)`,
		`CREATE TABLE checkpoints (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP,
 summary TEXT, start_conversation_id INTEGER, end_conversation_id INTEGER, token_count INTEGER)`,
		`CREATE TABLE control_queue (id INTEGER PRIMARY KEY, body TEXT)`,
		`INSERT INTO checkpoints (timestamp, summary, end_conversation_id, token_count) VALUES ('2026-03-01 00:00:00', 'from node', 0, 12)`,
		`INSERT INTO conversations (timestamp, direction, channel, endpoint_id, content, status, delivery_action)
 VALUES ('2026-03-15 09:00:00', 'out', 'lark', 'ou_1', 'running reply', 'running', 'send')`,
	} {
		mustExec(t, db, q)
	}
	db.Close()
	r := testutil.Run{ZylosDir: dir}
	got := transcript(t, r, args("c4 fetch --begin 1 --end 2"), args("c4 receive --channel lark --content hi"),
		args("c4 unsummarized"), args("sync checkpoint 2"), args("c4 checkpoint 2 --summary node-compatible"),
		args("c4 checkpoint latest"), args("c4 session-init"))
	testutil.Golden(t, "testdata/c4/newer-schema.golden", got)
	db = rawDB(t, dbPath)
	defer db.Close()
	var action string
	var tables int
	db.QueryRow(`SELECT delivery_action FROM conversations WHERE id = 1`).Scan(&action)
	db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'control_queue'`).Scan(&tables)
	if action != "send" || tables != 1 {
		t.Errorf("Node's data changed: delivery_action %q, control_queue tables %d", action, tables)
	}
}

// TestC4ConcurrentInit runs `c4 init` from several processes at once:
// exactly one creates the database, and it is complete.
func TestC4ConcurrentInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "zylos")
	var wg sync.WaitGroup
	outs := make([]string, 4)
	for i := range outs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			outs[i] = (testutil.Run{ZylosDir: dir}).Exec(t, "c4", "init").Stdout
		}(i)
	}
	wg.Wait()
	if n := strings.Count(strings.Join(outs, ""), "Created C4 database"); n != 1 {
		t.Errorf("%d processes created the database:\n%s", n, strings.Join(outs, ""))
	}
	if res := (testutil.Run{ZylosDir: dir}).Exec(t, "c4", "checkpoint", "latest"); res.Code != 0 || !strings.Contains(res.Stdout, `"summary": "initial"`) {
		t.Errorf("database incomplete: %q %q", res.Stdout, res.Stderr)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "comm-bridge"))
	if len(entries) != 1 {
		t.Errorf("left beside the database: %v", entries)
	}
}
