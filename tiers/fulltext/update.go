package fulltext

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
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
	ctx  context.Context
	opts updateOptions
	home Home
	q    querier
	tx   *sql.Tx
	st   UpdateStats
	dirs map[string]int64 // see dirTimes
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
	u := &updater{ctx: ctx, opts: opts, home: ix.home, q: ix.db}
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
	for _, t := range ix.home.trees() {
		if err := u.dir(t, t.dir); err != nil {
			return u.st, err
		}
	}
	if !ix.home.Standalone {
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

// dir indexes what changed in one directory of t: all its files when its
// own modification time changed (a file was added, removed or renamed in
// place) or the update is full, else only the files edited in place.
func (u *updater) dir(t tree, dir string) error {
	if err := u.ctx.Err(); err != nil {
		return err
	}
	rel := u.home.rel(dir)
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return u.forgetDir(rel)
	}
	dirs, err := u.dirTimes()
	if err != nil {
		return err
	}
	seen, known := dirs[rel]
	mtime := mtimeOf(fi)
	if !u.opts.full && known && seen == mtime && mtime != 0 {
		return u.hotFiles(t, dir)
	}
	if err := u.changed(); err != nil {
		return err
	}
	if err := u.scanDir(t, dir); err != nil {
		return err
	}
	_, err = u.q.ExecContext(u.ctx, `INSERT OR REPLACE INTO dirs(path, mtime) VALUES(?, ?)`, rel, mtime)
	return err
}

// dirTimes are the directories indexed and their modification times, read
// in one query: a prompt checks them all, and each query of its own cost
// a lock of the index's shared memory.
func (u *updater) dirTimes() (map[string]int64, error) {
	if u.dirs != nil {
		return u.dirs, nil
	}
	rows, err := u.q.QueryContext(u.ctx, `SELECT path, mtime FROM dirs`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	u.dirs = map[string]int64{}
	for rows.Next() {
		var p string
		var t int64
		if err := rows.Scan(&p, &t); err != nil {
			return nil, err
		}
		u.dirs[p] = t
	}
	return u.dirs, rows.Err()
}

// hotFiles are the files of an unchanged directory that are edited in
// place rather than replaced: current.md, and the reference files.
func (u *updater) hotFiles(t tree, dir string) error {
	switch t.kind {
	case kindLog:
		return u.file(t, filepath.Join(dir, "current.md"))
	case kindEntries:
		names, err := u.indexedFiles(u.home.rel(dir))
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := u.file(t, u.home.abs(n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// scanDir indexes every file of dir that changed and forgets those gone.
func (u *updater) scanDir(t tree, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		u.warn("read %s: %v", dir, err)
		return nil
	}
	present := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		if e.IsDir() {
			if t.recursive {
				present[u.home.rel(p)+"/"] = true
				if err := u.dir(t, p); err != nil {
					return err
				}
			}
			continue
		}
		if !t.wants(name) {
			continue
		}
		present[u.home.rel(p)] = true
		if err := u.file(t, p); err != nil {
			return err
		}
	}
	return u.forgetMissing(u.home.rel(dir), present)
}

func (t tree) wants(name string) bool {
	if t.kind == kindRecord {
		return strings.HasSuffix(name, ".json")
	}
	return strings.HasSuffix(name, ".md")
}

// file (re)indexes path if it changed: from where it ended when a log only
// grew, else whole.
func (u *updater) file(t tree, path string) error {
	rel := u.home.rel(path)
	fi, err := os.Lstat(path) // a symlink may lead out of memory: never followed
	if err != nil || !fi.Mode().IsRegular() {
		return u.forgetFile(rel)
	}
	key := keyOf(fi)
	var old fileKey
	var offset int64
	var line int
	var day string
	var digest uint32
	err = u.q.QueryRowContext(u.ctx, `SELECT size, mtime, inode, offset, line, day, digest FROM files WHERE path = ?`, rel).
		Scan(&old.size, &old.mtime, &old.inode, &offset, &line, &day, &digest)
	known := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if known && old == key && key.mtime != 0 {
		return nil
	}
	if err := u.changed(); err != nil {
		return err
	}
	u.st.Files++
	asLog := t.kind == kindLog || t.kind == kindArchive && isLogFile(path)
	if asLog && known && old.inode == key.inode && key.size > old.size && offset > 0 && unchangedPrefix(path, offset, digest) {
		return u.appendLog(t, path, rel, key, logReader{day: day, line: line, offset: offset, digest: digest})
	}
	if err := u.deleteDocs(rel, allLines); err != nil {
		return err
	}
	switch {
	case t.kind == kindRecord:
		d, err := recordDoc(path)
		if err != nil {
			u.warn("skip %s: %v", rel, err)
			return u.remember(rel, key, logReader{})
		}
		if err := u.insert(rel, t.tier, d); err != nil {
			return err
		}
		return u.remember(rel, key, logReader{})
	case !asLog:
		if docs, ok := entryDocs(path, t.tier == TierReference); ok {
			for _, d := range docs {
				if err := u.insert(rel, t.tier, d); err != nil {
					return err
				}
			}
			return u.remember(rel, key, logReader{})
		}
	}
	return u.appendLog(t, path, rel, key, logReader{day: logDay(path)})
}

// unchangedPrefix reports whether the first n bytes of path still have
// the digest they were indexed with: a log edited in place and grown (a
// word replaced, then a line added) is not an append.
func unchangedPrefix(path string, n int64, digest uint32) bool {
	f, err := regfile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	d, err := prefixDigest(f, n)
	return err == nil && d == digest
}

// appendLog indexes a log from lr.offset: the documents of lines after
// lr.line (an unterminated last line indexed before is indexed again).
func (u *updater) appendLog(t tree, path, rel string, key fileKey, lr logReader) error {
	if lr.line > 0 {
		if err := u.deleteDocs(rel, lr.line); err != nil {
			return err
		}
	}
	f, err := regfile.Open(path) // a FIFO put in place of a log must not hang
	if err != nil {
		u.warn("read %s: %v", rel, err)
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(lr.offset, io.SeekStart); err != nil {
		return err
	}
	lr.line = lr.complete()
	err = lr.read(f, func(d doc) error {
		if d.day == "" {
			d.day = lr.day
		}
		d.status = statusActive
		return u.insert(rel, t.tier, d)
	})
	if err != nil {
		u.warn("read %s: %v", rel, err)
	}
	return u.remember(rel, key, lr)
}

// remember records the version of rel that is indexed.
func (u *updater) remember(rel string, key fileKey, lr logReader) error {
	_, err := u.exec(`INSERT OR REPLACE INTO files(path, size, mtime, inode, offset, line, day, digest)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?)`, rel, key.size, key.mtime, key.inode, lr.offset, lr.complete(), lr.day, lr.digest)
	return err
}

func (u *updater) insert(rel, tier string, d doc) error {
	cjk := cjkPairs(d.title, d.tags, d.body)
	res, err := u.exec(`INSERT INTO docs(path, tier, line, day, status, category, title, tags, body, has_cjk)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, rel, tier, d.line, d.day, d.status, d.category, d.title, d.tags, d.body, cjk != "")
	if err != nil || u.opts.bulk {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	_, err = u.exec(`INSERT INTO fts(rowid, title, tags, body, cjk) VALUES(?, ?, ?, ?, ?)`, id, d.title, d.tags, d.body, cjk)
	return err
}

// allLines makes deleteDocs remove every document of a file: records
// are documents of line 0.
const allLines = -1

// deleteDocs removes the documents of rel after line after from the
// full-text index and the documents.
func (u *updater) deleteDocs(rel string, after int) error {
	if _, err := u.exec(`INSERT INTO fts(fts, rowid, title, tags, body, cjk)
		SELECT 'delete', id, title, tags, body, cjk FROM docs_text WHERE path = ? AND line > ?`, rel, after); err != nil {
		return err
	}
	_, err := u.exec(`DELETE FROM docs WHERE path = ? AND line > ?`, rel, after)
	return err
}

// forgetFile drops a file that is gone (or no longer a regular file).
func (u *updater) forgetFile(rel string) error {
	var n int
	if err := u.q.QueryRowContext(u.ctx, `SELECT count(*) FROM files WHERE path = ?`, rel).Scan(&n); err != nil || n == 0 {
		return err
	}
	if err := u.changed(); err != nil {
		return err
	}
	u.st.Removed++
	if err := u.deleteDocs(rel, allLines); err != nil {
		return err
	}
	_, err := u.q.ExecContext(u.ctx, `DELETE FROM files WHERE path = ?`, rel)
	return err
}

// forgetDir drops a directory that is gone, with everything below it.
// Only a directory once indexed (in dirs) can have files in the index.
func (u *updater) forgetDir(rel string) error {
	dirs, err := u.dirTimes()
	if err != nil {
		return err
	}
	if _, known := dirs[rel]; !known {
		return nil
	}
	files, err := u.indexedBelow(rel)
	if err != nil {
		return err
	}
	if err := u.changed(); err != nil {
		return err
	}
	for _, f := range files {
		if err := u.forgetFile(f); err != nil {
			return err
		}
	}
	_, err = u.q.ExecContext(u.ctx, `DELETE FROM dirs WHERE path = ? OR (path > ? AND path < ?)`, rel, rel+"/", rel+"0")
	return err
}

// forgetMissing drops the files and subdirectories of dir not in present
// (subdirectories keyed with a trailing slash).
func (u *updater) forgetMissing(dir string, present map[string]bool) error {
	files, err := u.indexedFiles(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if !present[f] {
			if err := u.forgetFile(f); err != nil {
				return err
			}
		}
	}
	below, err := u.indexedBelow(dir)
	if err != nil {
		return err
	}
	for _, f := range below {
		sub, _, nested := strings.Cut(strings.TrimPrefix(f, dir+"/"), "/")
		if nested && !present[dir+"/"+sub+"/"] {
			if err := u.forgetDir(dir + "/" + sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// indexedFiles are the indexed files directly in dir.
func (u *updater) indexedFiles(dir string) ([]string, error) {
	all, err := u.indexedBelow(dir)
	var direct []string
	for _, f := range all {
		if !strings.Contains(strings.TrimPrefix(f, dir+"/"), "/") {
			direct = append(direct, f)
		}
	}
	return direct, err
}

// indexedBelow are the indexed files at any depth below dir.
func (u *updater) indexedBelow(dir string) ([]string, error) {
	rows, err := u.q.QueryContext(u.ctx, `SELECT path FROM files WHERE path > ? AND path < ? ORDER BY path`, dir+"/", dir+"0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func (u *updater) warn(format string, args ...any) {
	u.st.Warnings = append(u.st.Warnings, fmt.Sprintf(format, args...))
}
