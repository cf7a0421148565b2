package c4sync

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
)

// schema is the C4 schema of zylos-core, applied only to a new file.
const schema = `
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
  priority INTEGER DEFAULT 3,
  require_idle INTEGER DEFAULT 0,
  retry_count INTEGER DEFAULT 0
);
CREATE INDEX idx_checkpoints_timestamp ON checkpoints(timestamp);
CREATE INDEX idx_conversations_timestamp ON conversations(timestamp);
CREATE INDEX idx_conversations_channel ON conversations(channel);
CREATE INDEX idx_conversations_status ON conversations(status);
CREATE INDEX idx_conversations_priority ON conversations(priority);
INSERT INTO checkpoints (summary) VALUES ('initial');
`

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
	sweepTemps(dir)
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

// tempPattern names the files Create builds a database in.
const tempPattern = ".c4.db.tmp-*"

// sweepTemps removes temp databases that a Create killed midway left
// behind; only old ones, so a Create running right now keeps its file.
func sweepTemps(dir string) {
	stale, _ := filepath.Glob(filepath.Join(dir, tempPattern))
	for _, p := range stale {
		if info, err := os.Stat(p); err == nil && time.Since(info.ModTime()) > 10*time.Minute {
			os.Remove(p)
		}
	}
}

// build writes the schema into the empty file at path and closes it, which
// folds the WAL back into the main file.
func build(path string) error {
	sdb, err := sql.Open("sqlite3", dsn(path, "rw"))
	if err != nil {
		return fmt.Errorf("create c4 db: %w", err)
	}
	sdb.SetMaxOpenConns(1)
	db := &DB{sql: sdb, path: path}
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
