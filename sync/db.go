package c4sync

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/zylos/zylos-memory/internal/sqliteuri"
	"github.com/zylos/zylos-memory/tiers/fulltext"
)

// BusyTimeout is how long a statement waits for another writer's lock
// before failing (milliseconds, as the Node C4 sets it).
const BusyTimeout = 5000

// ErrNoDB reports a C4 database file that does not exist.
var ErrNoDB = errors.New("c4 database not found")

// DB is an open C4 database. Its clock stamps the rows it inserts, so a
// fixed clock gives reproducible output.
type DB struct {
	sql  *sql.DB
	path string
	busy int // milliseconds a statement waits for a writer's lock
	now  func() time.Time
}

// Open opens an existing C4 database read-only. It never creates the file.
func Open(path string) (*DB, error) { return open(path, "ro", BusyTimeout) }

// OpenReader is Open for a reader that would rather come back later than
// wait: its statements give up after busy when a writer holds the file.
func OpenReader(path string, busy time.Duration) (*DB, error) {
	return open(path, "ro", int(busy.Milliseconds()))
}

// OpenConversations opens the conversation log at path for the search
// index (fulltext.OpenConversations): a reader, as OpenReader.
func OpenConversations(path string, busy time.Duration) (fulltext.Conversations, error) {
	db, err := OpenReader(path, busy)
	if err != nil {
		return nil, err
	}
	return db, nil
}

// OpenWrite opens an existing C4 database for writing, in WAL mode, and
// adds what zylos-core v0.7.1's schema has and it lacks (see upgrade), so
// the Node C4 of either era works on it afterwards.
func OpenWrite(path string) (*DB, error) {
	db, err := open(path, "rw", BusyTimeout)
	if err != nil {
		return nil, err
	}
	if err := db.ensureWAL(); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.upgrade(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// CreatedNotice is the line the Node C4 prints when it creates the database.
const CreatedNotice = "[C4-DB] Database initialized"

// FirstUse creates the database at path when the file is missing, as the
// Node C4 does on its first use, and reports whether it did.
func FirstUse(path string) (created bool, err error) {
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return Create(path)
}

func open(path, mode string, busy int) (*DB, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s (create it with: zylos-memory c4 init)", ErrNoDB, path)
		}
		return nil, fmt.Errorf("open c4 db %s: %w", path, err)
	}
	if err := sqliteuri.CheckFiles(path); err != nil {
		return nil, fmt.Errorf("open c4 db: %w", err)
	}
	sdb, err := sql.Open("sqlite3", dsn(path, mode, busy))
	if err != nil {
		return nil, fmt.Errorf("open c4 db %s: %w", path, err)
	}
	// One connection: pragmas and transactions then apply to every statement.
	sdb.SetMaxOpenConns(1)
	//processglobal: the default clock of a database (SetClock replaces it)
	db := &DB{sql: sdb, path: path, busy: busy, now: time.Now}
	if err := db.checkTables(); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

// dsn is the URI path is opened with: read-only (creating nothing, see
// sqliteuri.ReadOnly) for mode "ro", else read-write.
func dsn(path, mode string, busy int) string {
	q := url.Values{"mode": {mode}}
	if mode == "ro" {
		q = sqliteuri.ReadOnly(path)
	}
	q.Set("_busy_timeout", fmt.Sprint(busy))
	if mode == "rw" {
		// A writer takes the write lock at BEGIN, so a read-then-write
		// transaction can never fail half-way on a lock upgrade.
		q.Set("_txlock", "immediate")
	}
	return sqliteuri.URI(path, q)
}

// checkTables makes a file that is not a database, or a database without
// the C4 tables, fail at open with a clear message.
func (db *DB) checkTables() error {
	var n int
	err := db.sql.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('conversations', 'checkpoints')`).Scan(&n)
	if err != nil {
		return db.wrap("read schema", err)
	}
	if n != 2 {
		return fmt.Errorf("c4 db %s has no conversations/checkpoints tables (not a C4 database?)", db.path)
	}
	return nil
}

func (db *DB) ensureWAL() error {
	var mode string
	if err := db.sql.QueryRow(`PRAGMA journal_mode = WAL`).Scan(&mode); err != nil {
		return db.wrap("set journal_mode", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("c4 db %s: journal_mode is %q, want wal", db.path, mode)
	}
	return nil
}

// wrap turns SQLite's error codes into messages a user can act on.
func (db *DB) wrap(op string, err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return fmt.Errorf("%s: c4 db %s is locked by another writer (waited %d ms): %w", op, db.path, db.busy, err)
		case sqlite3.ErrNotADB, sqlite3.ErrCorrupt:
			return fmt.Errorf("%s: c4 db %s is corrupt or not a database: %w", op, db.path, err)
		}
	}
	return fmt.Errorf("%s: c4 db %s: %w", op, db.path, err)
}

// SetClock replaces the clock that stamps inserted rows.
func (db *DB) SetClock(now func() time.Time) { db.now = now }

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Close closes the database.
func (db *DB) Close() error { return db.sql.Close() }

// sqliteTime formats t as SQLite's CURRENT_TIMESTAMP does (UTC).
func sqliteTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }
