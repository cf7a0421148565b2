// Package realpath resolves a path through its symlinks as far as it
// exists: the one idea of where a file is that every part comparing paths
// (the records guard, the journal, the reference ingest) shares, so that a
// home reached through a link is the same home to each.
package realpath

import "path/filepath"

// Resolve follows the symlinks of the longest existing prefix of p and
// appends the rest, which cannot be a link yet. p should be absolute and
// clean; a p no part of which resolves comes back as it is.
func Resolve(p string) string {
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// Within is p relative to dir, slash-separated, when p lies below dir,
// compared both as written and resolved: a link into dir and a dir reached
// through a link are both inside.
func Within(dir, p string) (string, bool) {
	dir, p = filepath.Clean(dir), filepath.Clean(p)
	if rel, ok := Below(dir, p); ok {
		return rel, true
	}
	return Below(Resolve(dir), Resolve(p))
}

// Confined reports whether p, with its links followed, lies below dir
// with its links followed: a write to p cannot land outside dir.
func Confined(dir, p string) bool {
	_, ok := Below(Resolve(filepath.Clean(dir)), Resolve(filepath.Clean(p)))
	return ok
}

// Below is p relative to dir, slash-separated, when p lies strictly below
// dir as written (both clean); no link is followed.
func Below(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == "." || rel == ".." || len(rel) > 2 && rel[:3] == "../" {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
