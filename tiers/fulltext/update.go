package fulltext

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// UpdateStats says what an update did.
type UpdateStats struct {
	Files    int // files (re)indexed, whole or from where an append began
	Removed  int // files gone from the index
	C4Rows   int // C4 rows added
	Warnings []string
}

// Update brings the index up to date. A quick update looks into the
// directories whose modification time changed, plus current.md and the
// reference files (edited in place); a full one (full) compares every
// file. C4 rows are read past the watermark when c4.db changed. When
// nothing changed, nothing is written.
func (ix *Index) Update(ctx context.Context, full bool) (UpdateStats, error) {
	if !full {
		stale, err := ix.Stale(ctx)
		if err != nil || !stale {
			return UpdateStats{}, err
		}
	}
	return ix.update(ctx, updateOptions{full: full})
}

// Stale reports whether a quick update would change anything, reading
// only the file system and the index.
func (ix *Index) Stale(ctx context.Context) (bool, error) {
	_, err := ix.update(ctx, updateOptions{dry: true})
	if errors.Is(err, errChanged) {
		return true, nil
	}
	return false, err
}

// errChanged ends a dry update at the first change it finds.
var errChanged = errors.New("index is stale")

type updateOptions struct {
	full bool // compare every file, not only changed directories
	dry  bool // find whether anything changed; write nothing
	bulk bool // a new index: fill docs, build the full-text index at the end
}

// updater runs one update inside one transaction (none when dry).
type updater struct {
	ctx   context.Context
	opts  updateOptions
	scope Scope
	q     querier
	tx    *sql.Tx
	st    UpdateStats
	dirs  map[string]int64 // see dirTimes
	// stmts are the statements prepared in tx: a build inserts a million
	// rows, and preparing each insert again cost more than running it.
	stmts map[string]*sql.Stmt
}

// exec runs a statement of the update, prepared once per transaction.
func (u *updater) exec(query string, args ...any) (sql.Result, error) {
	if u.tx == nil {
		return u.q.ExecContext(u.ctx, query, args...)
	}
	st, ok := u.stmts[query]
	if !ok {
		var err error
		if st, err = u.tx.PrepareContext(u.ctx, query); err != nil {
			return nil, err
		}
		if u.stmts == nil {
			u.stmts = map[string]*sql.Stmt{}
		}
		u.stmts[query] = st
	}
	return st.ExecContext(u.ctx, args...)
}

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (ix *Index) update(ctx context.Context, opts updateOptions) (UpdateStats, error) {
	u := &updater{ctx: ctx, opts: opts, scope: ix.scope, q: ix.db}
	if !opts.dry {
		if ix.noWaitUpdate {
			if _, err := ix.db.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
				return u.st, err
			}
			defer ix.db.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA busy_timeout = %d`, ix.busy.Milliseconds()))
		}
		tx, err := ix.db.BeginTx(ctx, nil)
		if err != nil {
			if isBusy(err) {
				return u.st, fmt.Errorf("%w: %v", ErrLocked, err)
			}
			return u.st, err
		}
		defer tx.Rollback()
		u.tx, u.q = tx, tx
	}
	for _, t := range ix.scope.trees() {
		if err := u.dir(t, t.dir); err != nil {
			return u.st, err
		}
	}
	if !ix.scope.Standalone {
		if err := u.c4(); err != nil {
			return u.st, err
		}
	}
	if opts.bulk {
		if _, err := u.q.ExecContext(ctx, `INSERT INTO fts(fts) VALUES('rebuild')`); err != nil {
			return u.st, err
		}
	}
	if u.tx != nil {
		if err := u.tx.Commit(); err != nil {
			return u.st, err
		}
	}
	return u.st, nil
}

// changed is where a dry update stops; a real one goes on.
func (u *updater) changed() error {
	if u.opts.dry {
		return errChanged
	}
	return nil
}

// fileKey identifies a version of a file without reading it.
type fileKey struct{ size, mtime, inode int64 }

func keyOf(fi os.FileInfo) fileKey {
	k := fileKey{size: fi.Size(), mtime: mtimeOf(fi)}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		k.inode = int64(st.Ino)
	}
	return k
}

// racyWindow: file times advance by clock ticks, so a change made within
// a tick of the last one can leave the time as it was. A time that recent
// is remembered as 0, which the next update sees as a change.
const racyWindow = 50 * time.Millisecond

// mtimeOf is fi's modification time in nanoseconds, or 0 when it is too
// recent to tell a later change apart.
func mtimeOf(fi os.FileInfo) int64 {
	if time.Since(fi.ModTime()) < racyWindow {
		return 0
	}
	return fi.ModTime().UnixNano()
}
