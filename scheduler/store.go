package scheduler

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"syscall"

	sqlite3 "github.com/mattn/go-sqlite3" // also the database/sql driver "sqlite3"

	"github.com/zylos/zylos-memory/internal/sqliteuri"
	"github.com/zylos/zylos-memory/tiers"
)

// ErrCorrupt reports a state DB that SQLite cannot read. The file is never
// reset: the history in it may be all a user has to explain what ran.
var ErrCorrupt = errors.New("scheduler state DB is unreadable")

// schema is applied on every open; IF NOT EXISTS keeps it idempotent.
// Times are Unix seconds (UTC). A run row per (task, slot) is the claim
// that makes a slot fire at most once.
const schema = `
CREATE TABLE IF NOT EXISTS tasks (
	name         TEXT PRIMARY KEY,
	kind         TEXT NOT NULL CHECK (kind IN ('builtin', 'user')),
	prompt       TEXT NOT NULL DEFAULT '',
	schedule     TEXT NOT NULL,
	timezone     TEXT NOT NULL DEFAULT '',
	priority     INTEGER NOT NULL CHECK (priority BETWEEN 1 AND 3),
	require_idle INTEGER NOT NULL DEFAULT 0,
	enabled      INTEGER NOT NULL DEFAULT 1,
	miss_window  INTEGER NOT NULL DEFAULT 300,
	next_run     INTEGER,
	last_run     INTEGER,
	last_status  TEXT NOT NULL DEFAULT '',
	last_error   TEXT NOT NULL DEFAULT '',
	created      INTEGER NOT NULL,
	updated      INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	task     TEXT NOT NULL,
	slot     INTEGER NOT NULL,
	started  INTEGER NOT NULL,
	finished INTEGER,
	status   TEXT NOT NULL CHECK (status IN ('running', 'ok', 'error', 'skipped', 'missed', 'waiting')),
	detail   TEXT NOT NULL DEFAULT '',
	UNIQUE (task, slot)
);
CREATE INDEX IF NOT EXISTS runs_status ON runs (status);
`

// Store is the scheduler's state DB.
type Store struct {
	db   *sql.DB
	path string
}

// DBPath is where a home keeps the scheduler's state.
func DBPath(l tiers.Layout) string { return filepath.Join(l.StateDir(), "scheduler.db") }

// Open opens (creating if needed) the state DB of a home.
func Open(l tiers.Layout) (*Store, error) {
	if err := os.MkdirAll(l.StateDir(), 0o700); err != nil {
		return nil, fmt.Errorf("create state dir: %w", err)
	}
	return openPath(DBPath(l))
}

func openPath(path string) (*Store, error) {
	if err := sqliteuri.CheckFiles(path); err != nil {
		return nil, fmt.Errorf("open scheduler db: %w", err)
	}
	q := url.Values{}
	q.Set("_busy_timeout", "5000")
	q.Set("_journal_mode", "WAL")
	q.Set("_txlock", "immediate")
	q.Set("_foreign_keys", "1")
	s, err := openURI(path, sqliteuri.URI(path, q))
	if err != nil {
		return nil, err
	}
	if err := s.init(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// OpenRead opens the state DB of a home for the commands that only read
// it, and writes nothing: not the DB, not a -wal file, not the state dir.
// A home without a state DB, or with one whose tables were never made,
// reads as an empty schedule.
func OpenRead(l tiers.Layout) (*Store, error) {
	path := DBPath(l)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return openEmpty(path)
	}
	if err := sqliteuri.CheckFiles(path); err != nil {
		return nil, fmt.Errorf("open scheduler db: %w", err)
	}
	q := sqliteuri.ReadOnly(path)
	q.Set("_busy_timeout", "5000")
	s, err := openURI(path, sqliteuri.URI(path, q))
	if err != nil {
		return nil, err
	}
	var tasks, runs bool
	if err := s.db.QueryRow(`SELECT count(*) FILTER (WHERE name = 'tasks') > 0, count(*) FILTER (WHERE name = 'runs') > 0
		FROM sqlite_master WHERE type = 'table'`).Scan(&tasks, &runs); err != nil {
		s.Close()
		return nil, s.failed(err)
	}
	switch {
	case !tasks && !runs:
		s.Close()
		return openEmpty(path)
	case !tasks:
		s.Close()
		return nil, s.damaged("tasks", "runs")
	case !runs:
		s.Close()
		return nil, s.damaged("runs", "tasks")
	}
	return s, nil
}

// ErrDamaged reports a state DB that SQLite reads but that lacks one of
// the scheduler's tables: reading it as an empty schedule would hide the
// tasks or the history still in it.
var ErrDamaged = errors.New("scheduler state DB is damaged")

func (s *Store) damaged(missing, present string) error {
	return fmt.Errorf("%w: %s has no %s table but has its %s table (the file was left as it is; the next scheduler command that writes, such as `scheduler run`, recreates the %s table empty)",
		ErrDamaged, s.path, missing, present, missing)
}

// openEmpty is an empty schedule in memory, named after the DB it stands
// in for.
func openEmpty(path string) (*Store, error) {
	s, err := openURI(path, "file::memory:")
	if err != nil {
		return nil, err
	}
	// Every connection to :memory: is a database of its own: keep one.
	s.db.SetMaxOpenConns(1)
	if _, err := s.db.Exec(schema); err != nil {
		s.Close()
		return nil, fmt.Errorf("open empty schedule: %w", err)
	}
	return s, nil
}

func openURI(path, uri string) (*Store, error) {
	db, err := sql.Open("sqlite3", uri)
	if err != nil {
		return nil, fmt.Errorf("open scheduler db: %w", err)
	}
	return &Store{db: db, path: path}, nil
}

func (s *Store) init() error {
	var mode string
	if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		return s.failed(err)
	}
	if mode != "wal" {
		return fmt.Errorf("scheduler db %s: journal_mode is %q, want wal", s.path, mode)
	}
	if _, err := s.db.Exec(schema); err != nil {
		return s.failed(err)
	}
	return nil
}

// ErrDiskFull reports a write to the state DB that the disk had no room
// for. SQLite rolled it back: the schedule is as it was.
var ErrDiskFull = errors.New("no space left on the disk")

// failed says what really went wrong with the state DB: only a file SQLite
// cannot read as a database is ErrCorrupt, whose advice is to move it
// aside; a full disk, a lock or a permission problem leaves the file
// sound, and moving it aside would throw the schedule away.
func (s *Store) failed(err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch {
		case se.Code == sqlite3.ErrFull || se.SystemErrno == syscall.ENOSPC:
			return fmt.Errorf("%w for the scheduler state DB %s: %v (nothing was changed; free some space and run the command again)", ErrDiskFull, s.path, err)
		case se.Code == sqlite3.ErrNotADB || se.Code == sqlite3.ErrCorrupt:
			return fmt.Errorf("%w: %s: %v (the file was left as it is; move it aside to start with an empty schedule)", ErrCorrupt, s.path, err)
		}
	}
	return fmt.Errorf("scheduler state DB %s: %w", s.path, err)
}

// Close releases the DB.
func (s *Store) Close() error { return s.db.Close() }
