package fulltext

import (
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// dir indexes what changed in one directory of t: all its files when its
// own modification time changed (a file was added, removed or renamed in
// place) or the update is full, else only the files edited in place.
func (u *updater) dir(t tree, dir string) error {
	if err := u.ctx.Err(); err != nil {
		return err
	}
	rel := u.scope.rel(dir)
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
		names, err := u.indexedFiles(u.scope.rel(dir))
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := u.file(t, u.scope.abs(n)); err != nil {
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
				present[u.scope.rel(p)+"/"] = true
				if err := u.dir(t, p); err != nil {
					return err
				}
			}
			continue
		}
		if !t.wants(name) {
			continue
		}
		present[u.scope.rel(p)] = true
		if err := u.file(t, p); err != nil {
			return err
		}
	}
	return u.forgetMissing(u.scope.rel(dir), present)
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
	rel := u.scope.rel(path)
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
