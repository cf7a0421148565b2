package fulltext

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/internal/sqliteuri"
)

// ErrLocked reports an index another process holds longer than the wait
// allowed: the caller answers without it.
var ErrLocked = errors.New("search index is busy")

// Index is an open recall index.
type Index struct {
	db    *sql.DB
	scope Scope
	// busy is how long a statement waits for another process's lock.
	busy time.Duration
	// noWaitUpdate: see Options.
	noWaitUpdate bool
}

// Options tune Open.
type Options struct {
	// BusyTimeout bounds every wait for another process's lock on the
	// index (default 5 s); the prompt hook passes its own remaining time.
	BusyTimeout time.Duration
	// NoWaitUpdate makes an update that finds another process writing the
	// index give up at once (ErrLocked) instead of waiting its turn: when
	// many prompts arrive together, one updates and the rest read.
	NoWaitUpdate bool
	// BuildWithin bounds a build Open must do (0: only ctx bounds it). A
	// build that does not finish in time is given to Background, when set,
	// to be done in a process of its own, and Open fails with ErrBuilding:
	// a prompt hook must not spend its deadline on a build it cannot finish.
	BuildWithin time.Duration
	Background  func() error
}

// ErrBuilding reports an index being built in the background.
var ErrBuilding = errors.New("search index is being built")

// Open opens the index of h, building it first when it is missing,
// unreadable or of another schema. It never touches a memory file.
func Open(ctx context.Context, h Scope, opts Options) (*Index, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 5 * time.Second
	}
	path := h.DBPath()
	ix, err := openIndex(h, path, opts.BusyTimeout)
	if err == nil {
		ix.noWaitUpdate = opts.NoWaitUpdate
		return ix, nil
	}
	if errors.Is(err, ErrLocked) {
		return nil, err
	}
	if err := boundedBuild(ctx, h, opts); err != nil {
		return nil, err
	}
	if ix, err = openIndex(h, path, opts.BusyTimeout); err != nil {
		return nil, err
	}
	ix.noWaitUpdate = opts.NoWaitUpdate
	return ix, nil
}

// boundedBuild builds the index within opts.BuildWithin, handing a build
// that ran out of time (not one that waited for another builder) to
// opts.Background.
func boundedBuild(ctx context.Context, h Scope, opts Options) error {
	if opts.BuildWithin <= 0 {
		return build(ctx, h, false)
	}
	bctx, cancel := context.WithTimeout(ctx, opts.BuildWithin)
	defer cancel()
	err := build(bctx, h, false)
	if errors.Is(err, ErrLocked) && ctx.Err() == nil {
		// another process is building: its index is worth the rest of ctx
		return build(ctx, h, false)
	}
	if err == nil || ctx.Err() != nil || bctx.Err() == nil || opts.Background == nil {
		return err
	}
	if berr := opts.Background(); berr != nil {
		return fmt.Errorf("%w; building it in the background: %v", err, berr)
	}
	return ErrBuilding
}

// Close closes the index.
func (ix *Index) Close() error { return ix.db.Close() }

// errStale reports an index that must be built again (missing, damaged,
// of another schema).
var errStale = errors.New("search index must be rebuilt")

// openIndex opens an existing index and checks its schema version.
func openIndex(h Scope, path string, busy time.Duration) (*Index, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, errStale
	}
	if err := sqliteuri.CheckFiles(path); err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	db, err := sql.Open(driverName, dsn(path, busy))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	var version string
	err = db.QueryRow(`SELECT value FROM meta WHERE key = 'version'`).Scan(&version)
	if err == nil && version == schemaVersion {
		return &Index{db: db, scope: h, busy: busy}, nil
	}
	db.Close()
	if isBusy(err) {
		return nil, fmt.Errorf("%w: %v", ErrLocked, err)
	}
	return nil, errStale
}

// driverName is the SQLite driver of the index: every connection keeps
// the -wal and -shm files when it closes (SQLITE_FCNTL_PERSIST_WAL). A
// prompt opens the index in a process of its own; without this, each
// would create both files and the last to close would delete them again,
// and that file churn cost more than the search itself.
const driverName = "sqlite3_fulltext"

// walSizeLimit bounds the -wal file kept between updates.
const walSizeLimit = 4 << 20

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		if err := c.RegisterFunc("cjk_pairs", cjkPairs3, true); err != nil {
			return err
		}
		if err := c.SetFileControlInt("main", sqlite3.SQLITE_FCNTL_PERSIST_WAL, 1); err != nil {
			return err
		}
		_, err := c.Exec(fmt.Sprintf("PRAGMA journal_size_limit = %d", walSizeLimit), nil)
		return err
	}})
}

// dsn opens path read-write, in WAL mode, every transaction immediate so
// that an update takes the write lock before it reads what to change.
func dsn(path string, busy time.Duration) string {
	return sqliteuri.URI(path, url.Values{
		"_busy_timeout": {strconv.FormatInt(busy.Milliseconds(), 10)},
		"_txlock":       {"immediate"},
		"_synchronous":  {"NORMAL"},
	})
}

func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// Rebuild builds the index of h from scratch and puts it in place of the
// old one, as `reindex` does.
func Rebuild(ctx context.Context, h Scope) error { return build(ctx, h, true) }

// build writes a new index into a temporary file and renames it into
// place, under the build lock: one process builds, the others wait and use
// its result. Without force, an index found valid once the lock is held
// is kept.
func build(ctx context.Context, h Scope, force bool) error {
	path := h.DBPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	unlock, err := lockBuild(ctx, path+".lock")
	if err != nil {
		return err
	}
	defer unlock()
	if !force {
		if ix, err := openIndex(h, path, time.Second); err == nil {
			ix.Close()
			return nil
		}
	}
	tmp := fmt.Sprintf("%s.new-%d", path, os.Getpid())
	defer os.Remove(tmp)
	if err := fill(ctx, h, tmp); err != nil {
		return fmt.Errorf("build search index: %w", err)
	}
	// A -wal or -shm left by the old file would be replayed into the new.
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("build search index: %w", err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("build search index: %w", err)
	}
	return nil
}

// fill creates the schema in a new file at tmp and indexes everything,
// without a journal: a crash leaves only a temporary file to remove.
func fill(ctx context.Context, h Scope, tmp string) error {
	os.Remove(tmp)
	db, err := sql.Open(driverName, sqliteuri.URI(tmp, url.Values{"_journal_mode": {"OFF"}, "_synchronous": {"OFF"},
		"_locking_mode": {"EXCLUSIVE"}, "_cache_size": {"-65536"}}))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		return err
	}
	ix := &Index{db: db, scope: h, busy: time.Second}
	if _, err := ix.update(ctx, updateOptions{full: true, bulk: true}); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES('version', ?)`, schemaVersion); err != nil {
		return err
	}
	var mode string
	if err := db.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode); err != nil || mode != "wal" {
		return fmt.Errorf("journal mode %q: %v", mode, err)
	}
	return db.Close()
}

// lockBuild takes the build lock, polling until ctx ends.
func lockBuild(ctx context.Context, path string) (unlock func(), err error) {
	f, err := regfile.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("search index lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("search index lock: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("%w: another process is building it", ErrLocked)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
