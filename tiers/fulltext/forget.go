package fulltext

import (
	"fmt"
	"strings"
)

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
