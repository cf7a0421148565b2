package c4sync

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
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
	now  func() time.Time
}

// Open opens an existing C4 database read-only. It never creates the file.
func Open(path string) (*DB, error) { return open(path, "ro") }

// OpenWrite opens an existing C4 database for writing, in WAL mode.
func OpenWrite(path string) (*DB, error) {
	db, err := open(path, "rw")
	if err != nil {
		return nil, err
	}
	if err := db.ensureWAL(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func open(path, mode string) (*DB, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s (create it with: zylos-memory c4 init)", ErrNoDB, path)
		}
		return nil, fmt.Errorf("open c4 db %s: %w", path, err)
	}
	if mode == "ro" && walAtRest(path) {
		mode = "immutable"
	}
	sdb, err := sql.Open("sqlite3", dsn(path, mode))
	if err != nil {
		return nil, fmt.Errorf("open c4 db %s: %w", path, err)
	}
	// One connection: pragmas and transactions then apply to every statement.
	sdb.SetMaxOpenConns(1)
	db := &DB{sql: sdb, path: path, now: time.Now}
	if err := db.checkTables(); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

// dsn builds a file: URI so that mode=ro is honoured and odd characters in
// the path are escaped.
func dsn(path, mode string) string {
	q := url.Values{}
	if mode == "immutable" {
		q.Set("immutable", "1")
		mode = "ro"
	}
	q.Set("mode", mode)
	q.Set("_busy_timeout", fmt.Sprint(BusyTimeout))
	if mode == "rw" {
		// A writer takes the write lock at BEGIN, so a read-then-write
		// transaction can never fail half-way on a lock upgrade.
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: q.Encode()}
	return u.String()
}

// walAtRest reports a WAL-mode database that no connection has open (no
// -wal or -shm beside it). SQLite would create both files even for a
// read-only connection; opening such a file immutable reads it without
// leaving a byte behind. The main file of a WAL database changes only at a
// checkpoint, which a writer opening meanwhile reaches only after 1000
// pages of WAL, far longer than a read command lives.
func walAtRest(path string) bool {
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Lstat(path + suffix); !errors.Is(err, os.ErrNotExist) {
			return false
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var header [20]byte
	if _, err := io.ReadFull(f, header[:]); err != nil {
		return false
	}
	// Bytes 18 and 19 are the file format read/write versions: 2 means WAL.
	return string(header[:16]) == "SQLite format 3\x00" && header[18] == 2
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
			return fmt.Errorf("%s: c4 db %s is locked by another writer (waited %d ms): %w", op, db.path, BusyTimeout, err)
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
