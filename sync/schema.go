package c4sync

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zylos/zylos-memory/internal/atomicfile"
)

// schema is the C4 schema of zylos-core v0.7.1 (init-db.sql), applied only
// to a new file. It is a superset of the v2-era schema: the v2-era Node C4
// ignores the tables and the column it does not know, and v0.7.1's Node C4
// finds everything it expects (it cannot add control_queue itself).
var schema = `
CREATE TABLE checkpoints (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp DATETIME DEFAULT CURRENT_TIMESTAMP,
  summary TEXT,
  start_conversation_id INTEGER,
  end_conversation_id INTEGER
);
CREATE TABLE conversations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp DATETIME DEFAULT CURRENT_TIMESTAMP,
  direction TEXT NOT NULL,
  channel TEXT NOT NULL,
  endpoint_id TEXT,
  content TEXT NOT NULL,
  status TEXT DEFAULT 'pending',
  delivery_action TEXT,
  priority INTEGER DEFAULT 3,
  require_idle INTEGER DEFAULT 0,
  retry_count INTEGER DEFAULT 0
);
CREATE INDEX idx_checkpoints_timestamp ON checkpoints(timestamp);
CREATE INDEX idx_conversations_timestamp ON conversations(timestamp);
CREATE INDEX idx_conversations_channel ON conversations(channel);
CREATE INDEX idx_conversations_status ON conversations(status);
CREATE INDEX idx_conversations_priority ON conversations(priority);
` + newerSchema() + `
INSERT INTO checkpoints (summary) VALUES ('initial');
`

// v2Indexes and newerObjects are what an older database may lack: the
// v2-era indexes (a hand-made database may not have them) and what
// zylos-core v0.7.1 added. Each is created only when it is missing, an
// index only when its table has its columns (a newer Node C4 may have a
// table of the same name shaped otherwise: it is left as it is).
var v2Indexes = []schemaObject{
	index("idx_checkpoints_timestamp", "checkpoints", "timestamp"),
	index("idx_conversations_timestamp", "conversations", "timestamp"),
	index("idx_conversations_channel", "conversations", "channel"),
	index("idx_conversations_status", "conversations", "status"),
	index("idx_conversations_priority", "conversations", "priority"),
}

var newerObjects = []schemaObject{
	{name: "control_queue", stmt: `CREATE TABLE IF NOT EXISTS control_queue (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  raw_content TEXT NOT NULL,
  content TEXT NOT NULL,
  priority INTEGER DEFAULT 3,
  require_idle INTEGER DEFAULT 0,
  bypass_state INTEGER DEFAULT 0,
  ack_deadline_at INTEGER,
  status TEXT DEFAULT 'pending',
  retry_count INTEGER DEFAULT 0,
  available_at INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
)`},
	index("idx_control_queue_status_priority_time", "control_queue", "status", "priority", "created_at"),
	index("idx_control_queue_available_at", "control_queue", "available_at"),
	index("idx_control_queue_ack_deadline", "control_queue", "ack_deadline_at"),
	index("idx_control_queue_updated_at", "control_queue", "updated_at"),
	{name: "status_notice_cooldowns", stmt: `CREATE TABLE IF NOT EXISTS status_notice_cooldowns (
  cooldown_key TEXT PRIMARY KEY,
  channel TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  status_type TEXT NOT NULL,
  reason TEXT NOT NULL,
  last_notified_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
)`},
	index("idx_status_notice_cooldowns_expires_at", "status_notice_cooldowns", "expires_at"),
}

// schemaObject is a table or index of the schema and the statement that
// creates it; an index also names its table and columns.
type schemaObject struct {
	name, stmt, table string
	columns           []string
}

func index(name, table string, columns ...string) schemaObject {
	return schemaObject{name: name, table: table, columns: columns,
		stmt: fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s(%s)", name, table, strings.Join(columns, ", "))}
}

// newerSchema is the DDL of newerObjects, for a new database.
func newerSchema() string {
	var b strings.Builder
	for _, o := range newerObjects {
		b.WriteString(o.stmt + ";\n")
	}
	return b.String()
}

// upgrade adds to an existing database what the schema has and it lacks
// (v0.7.1's tables, indexes and the delivery_action column), in one
// transaction; it never drops, renames or changes anything. A database
// that already has everything is left untouched, without a write.
func (db *DB) upgrade() error {
	if missing, err := missingSchema(db.sql); err != nil {
		return db.wrap("read c4 schema", err)
	} else if len(missing) == 0 {
		return nil
	}
	tx, err := db.sql.Begin()
	if err != nil {
		return db.wrap("upgrade c4 schema", err)
	}
	defer tx.Rollback()
	// Read again inside the write lock: a Node C4 may have added the same.
	missing, err := missingSchema(tx)
	if err != nil {
		return db.wrap("upgrade c4 schema", err)
	}
	for _, stmt := range missing {
		if _, err := tx.Exec(stmt); err != nil {
			return db.wrap("upgrade c4 schema", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return db.wrap("upgrade c4 schema", err)
	}
	return nil
}

type querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

// missingSchema lists, in order, the statements that bring the database's
// schema up to the superset: nothing when it is complete.
func missingSchema(q querier) ([]string, error) {
	names, err := queryStrings(q, `SELECT name FROM sqlite_master WHERE type IN ('table', 'index')`)
	if err != nil {
		return nil, err
	}
	have := make(map[string]bool, len(names))
	for _, n := range names {
		have[n] = true
	}
	columns := map[string][]string{}
	columnsOf := func(table string) ([]string, error) {
		if cols, ok := columns[table]; ok {
			return cols, nil
		}
		cols, err := queryStrings(q, `SELECT name FROM pragma_table_info(?)`, table)
		columns[table] = cols
		return cols, err
	}
	var missing []string
	created := map[string]bool{}
	if cols, err := columnsOf("conversations"); err != nil {
		return nil, err
	} else if !slices.Contains(cols, "delivery_action") {
		missing = append(missing, `ALTER TABLE conversations ADD COLUMN delivery_action TEXT`)
	}
	for _, o := range append(slices.Clone(v2Indexes), newerObjects...) {
		if have[o.name] {
			continue
		}
		if o.table != "" && have[o.table] && !created[o.table] {
			cols, err := columnsOf(o.table)
			if err != nil {
				return nil, err
			}
			if !containsAll(cols, o.columns) {
				continue
			}
		}
		missing = append(missing, o.stmt)
		have[o.name], created[o.name] = true, true
	}
	return missing, nil
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

func queryStrings(q querier, query string, args ...any) ([]string, error) {
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Create makes a new C4 database at path unless a file is already there.
// The database is built in a temporary file and linked into place, so a
// crash leaves either no database or a complete one, and a database created
// meanwhile by the Node C4 is never replaced.
func Create(path string) (created bool, err error) {
	if _, err := os.Stat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("create c4 db %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("create c4 db dir: %w", err)
	}
	atomicfile.Sweep(dir)
	tmp, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return false, fmt.Errorf("create c4 db: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	// CreateTemp makes 0600 files; the Node C4 gets the usual 0644.
	if err := os.Chmod(tmpPath, 0o644); err != nil {
		return false, fmt.Errorf("create c4 db: %w", err)
	}
	defer os.Remove(tmpPath)
	if err := build(tmpPath); err != nil {
		return false, err
	}
	if err := os.Link(tmpPath, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("create c4 db %s: %w", path, err)
	}
	return true, atomicfile.SyncDir(dir)
}

// tempPattern names the files Create builds a database in: the temp
// names of atomicfile, so that atomicfile.Sweep clears those a killed
// Create left behind.
const tempPattern = ".c4.db.tmp-*"

// build writes the schema into the empty file at path and closes it, which
// folds the WAL back into the main file.
func build(path string) error {
	sdb, err := sql.Open("sqlite3", dsn(path, "rw", BusyTimeout))
	if err != nil {
		return fmt.Errorf("create c4 db: %w", err)
	}
	sdb.SetMaxOpenConns(1)
	db := &DB{sql: sdb, path: path, busy: BusyTimeout}
	defer sdb.Close()
	if err := db.ensureWAL(); err != nil {
		return err
	}
	if _, err := sdb.Exec(schema); err != nil {
		return db.wrap("create c4 schema", err)
	}
	if err := sdb.Close(); err != nil {
		return fmt.Errorf("create c4 db: %w", err)
	}
	return nil
}
