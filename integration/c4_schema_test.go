package integration

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// v2EraSchema is the C4 schema of the v2-era Node C4 (zylos-core d28f8c3),
// and of databases earlier versions of this binary created.
const v2EraSchema = `
CREATE TABLE checkpoints (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP,
 summary TEXT, start_conversation_id INTEGER, end_conversation_id INTEGER);
CREATE TABLE conversations (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP,
 direction TEXT NOT NULL, channel TEXT NOT NULL, endpoint_id TEXT, content TEXT NOT NULL, status TEXT DEFAULT 'pending',
 priority INTEGER DEFAULT 3, require_idle INTEGER DEFAULT 0, retry_count INTEGER DEFAULT 0);
CREATE INDEX idx_checkpoints_timestamp ON checkpoints(timestamp);
CREATE INDEX idx_conversations_timestamp ON conversations(timestamp);
CREATE INDEX idx_conversations_channel ON conversations(channel);
CREATE INDEX idx_conversations_status ON conversations(status);
CREATE INDEX idx_conversations_priority ON conversations(priority);
INSERT INTO checkpoints (summary) VALUES ('initial');
INSERT INTO conversations (timestamp, direction, channel, endpoint_id, content) VALUES ('2026-03-15 09:00:00', 'in', 'telegram', '42', 'kept');
`

// v071Objects are the tables and indexes zylos-core v0.7.1's init-db.sql
// creates, and conversations' columns there.
var (
	v071Objects = []string{"checkpoints", "conversations", "control_queue", "status_notice_cooldowns",
		"idx_checkpoints_timestamp", "idx_conversations_timestamp", "idx_conversations_channel",
		"idx_conversations_status", "idx_conversations_priority", "idx_control_queue_status_priority_time",
		"idx_control_queue_available_at", "idx_control_queue_ack_deadline", "idx_control_queue_updated_at",
		"idx_status_notice_cooldowns_expires_at"}
	v071ConversationColumns = []string{"id", "timestamp", "direction", "channel", "endpoint_id", "content", "status",
		"delivery_action", "priority", "require_idle", "retry_count"}
	v071ControlQueueColumns = []string{"id", "raw_content", "content", "priority", "require_idle", "bypass_state",
		"ack_deadline_at", "status", "retry_count", "available_at", "last_error", "created_at", "updated_at"}
)

// schemaOf lists a database's tables and indexes (autoindexes and
// sqlite_sequence aside) and the columns of a table.
func schemaOf(tb testing.TB, dbPath string) (objects []string, columns func(table string) []string) {
	tb.Helper()
	db := rawDB(tb, dbPath)
	tb.Cleanup(func() { db.Close() })
	objects = queryStrings(tb, db, `SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name`)
	return objects, func(table string) []string {
		return queryStrings(tb, db, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// TestC4FirstUseCreatesDatabase runs each C4 command on a home without a
// database: like the Node C4, it creates one (v0.7.1's schema) and works.
func TestC4FirstUseCreatesDatabase(t *testing.T) {
	for _, cmd := range append(slices.Clone(readCommands), args("c4 receive --no-reply --content x"),
		args("c4 fetch --unsummarized")) {
		t.Run(strings.Join(cmd, " "), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "zylos")
			res := (testutil.Run{ZylosDir: dir}).Exec(t, cmd...)
			if res.Code != 0 || res.Stderr != "[C4-DB] Database initialized\n" {
				t.Fatalf("exit %d, stderr %q, stdout %q", res.Code, res.Stderr, res.Stdout)
			}
			objects, columns := schemaOf(t, filepath.Join(dir, "comm-bridge", "c4.db"))
			if !slices.Equal(objects, sorted(v071Objects)) {
				t.Errorf("tables and indexes %v, want %v", objects, sorted(v071Objects))
			}
			if got := columns("conversations"); !slices.Equal(got, v071ConversationColumns) {
				t.Errorf("conversations columns %v", got)
			}
			if got := columns("control_queue"); !slices.Equal(got, v071ControlQueueColumns) {
				t.Errorf("control_queue columns %v", got)
			}
		})
	}
}

// TestC4UpgradeAddsOnlyWhatIsMissing opens a v2-era database for writing:
// v0.7.1's tables, indexes and column are added, the rows and the existing
// schema are kept, and a second write changes the schema no more.
func TestC4UpgradeAddsOnlyWhatIsMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "zylos")
	dbPath := filepath.Join(dir, "comm-bridge", "c4.db")
	os.MkdirAll(filepath.Dir(dbPath), 0o755)
	db := rawDB(t, dbPath)
	mustExec(t, db, v2EraSchema)
	db.Close()
	r := testutil.Run{ZylosDir: dir}
	if res := r.Exec(t, "c4", "fetch", "--begin", "1", "--end", "1"); res.Code != 0 {
		t.Fatal(res.Stderr)
	}
	if objects, _ := schemaOf(t, dbPath); len(objects) != 7 {
		t.Errorf("a read command changed the schema: %v", objects)
	}
	if res := r.Exec(t, "c4", "checkpoint", "1", "--summary", "up"); res.Code != 0 {
		t.Fatal(res.Stderr)
	}
	objects, columns := schemaOf(t, dbPath)
	if !slices.Equal(objects, sorted(v071Objects)) {
		t.Errorf("after a write: %v, want %v", objects, sorted(v071Objects))
	}
	want := append(slices.DeleteFunc(slices.Clone(v071ConversationColumns), func(c string) bool { return c == "delivery_action" }), "delivery_action")
	if got := columns("conversations"); !slices.Equal(got, want) {
		t.Errorf("conversations columns %v, want %v", got, want)
	}
	res := r.Exec(t, "c4", "fetch", "--begin", "1", "--end", "1")
	if !strings.Contains(res.Stdout, "[Last Checkpoint Summary] up\n") || !strings.Contains(res.Stdout, "\nkept\n") {
		t.Errorf("rows lost or checkpoint missing:\n%s", res.Stdout)
	}
	before, _ := os.ReadFile(dbPath)
	if res := r.Exec(t, "c4", "receive", "--no-reply", "--content", "again"); res.Code != 0 {
		t.Fatal(res.Stderr)
	}
	if objects2, _ := schemaOf(t, dbPath); !slices.Equal(objects2, objects) {
		t.Errorf("second write changed the schema: %v", objects2)
	}
	if len(before) == 0 {
		t.Error("empty database")
	}
}
