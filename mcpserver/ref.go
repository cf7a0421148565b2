package mcpserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/zylos/zylos-memory/internal/realpath"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/entries"
)

// ref is what a memory_read or memory_history ref names: a memory file
// (and a line of it), a record, or a C4 conversation.
type ref struct {
	rel  string // slash path from the home: memory/reference/decisions.md
	abs  string
	line int   // 1-based; 0 for the whole file
	c4   int64 // a conversation id, else 0
}

func (r ref) isRecord() bool {
	return strings.HasPrefix(r.rel, "memory/records/") && strings.HasSuffix(r.rel, ".json")
}

const refForms = "a citation (memory/reference/decisions.md:12), a path under memory/, a record id (use-sqlite-for-c4) or c4:ID"

// resolve reads ref the way search cites: "c4:ID", "PATH:LINE", "PATH"
// (from the home, or from memory/), or a record id. Paths stay inside the
// home's memory, links included, and out of its service state.
func (h call) resolve(s string) (ref, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return ref{}, fmt.Errorf("give ref: %s", refForms)
	}
	if id, ok := strings.CutPrefix(s, "c4:"); ok {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n <= 0 {
			return ref{}, fmt.Errorf("ref %q: a conversation is c4: and its id, a positive number", s)
		}
		return ref{c4: n, rel: s}, nil
	}
	line := 0
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		if n, err := strconv.Atoi(s[i+1:]); err == nil {
			if n <= 0 {
				return ref{}, fmt.Errorf("ref %q: a line number starts at 1", s)
			}
			s, line = s[:i], n
		}
	}
	if !strings.ContainsRune(s, '/') && !strings.HasSuffix(s, ".md") && !strings.HasSuffix(s, ".json") {
		if line > 0 {
			return ref{}, fmt.Errorf("ref %q: a line number goes with a file path", s)
		}
		return h.recordByID(s)
	}
	r, err := h.memoryPath(s)
	r.line = line
	return r, err
}

// memoryPath is a path under the home's memory/, given from the home,
// from memory/, or absolute.
func (h call) memoryPath(p string) (ref, error) {
	home := h.Layout.ZylosDir
	rel := filepath.ToSlash(filepath.Clean(p))
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(home, filepath.Clean(p))
		if err != nil {
			return ref{}, fmt.Errorf("ref %q: not in this home %s", p, home)
		}
		rel = filepath.ToSlash(r)
	} else if !strings.HasPrefix(rel, "memory/") {
		rel = "memory/" + rel
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".." || (strings.HasPrefix(part, ".") && part != ".") {
			return ref{}, fmt.Errorf("ref %q: give a path inside memory/ (no .., no hidden files)", p)
		}
	}
	if !strings.HasPrefix(rel, "memory/") {
		return ref{}, fmt.Errorf("ref %q: not in this home's memory/ (%s)", p, h.Layout.MemoryDir())
	}
	abs := filepath.Join(home, filepath.FromSlash(rel))
	if _, err := filepath.EvalSymlinks(abs); errors.Is(err, os.ErrNotExist) {
		return ref{}, fmt.Errorf("%s does not exist; find the memory with memory_search", rel)
	} else if err != nil {
		return ref{}, fmt.Errorf("ref %q: %w", p, err)
	}
	if !realpath.Confined(h.Layout.MemoryDir(), abs) {
		return ref{}, fmt.Errorf("ref %q: it leads outside this home's memory/", p)
	}
	return ref{rel: rel, abs: abs}, nil
}

// recordByID finds the record of id in any category folder.
func (h call) recordByID(id string) (ref, error) {
	matches, _ := filepath.Glob(filepath.Join(h.Layout.RecordsDir(), "*", id+".json"))
	switch len(matches) {
	case 0:
		return ref{}, fmt.Errorf("no record has id %q; find it with memory_search, or give a path (%s)", id, refForms)
	case 1:
		return h.memoryPath(matches[0])
	}
	var rels []string
	for _, m := range matches {
		if rel, err := filepath.Rel(h.Layout.ZylosDir, m); err == nil {
			rels = append(rels, filepath.ToSlash(rel))
		}
	}
	return ref{}, fmt.Errorf("records of several categories have id %q; give the path: %s", id, strings.Join(rels, ", "))
}

// entryOfRecord is the markdown entry that shows record id, found by its
// id comment in the reference and archive files, or false.
func (h call) entryOfRecord(id string) (entries.Entry, string, bool) {
	for _, dir := range []string{h.Layout.ReferenceDir(), h.Layout.ArchiveDir()} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		for _, f := range files {
			data, err := tiers.ReadTierFile(f)
			if err != nil || !strings.Contains(string(data), entries.IDComment(id)) {
				continue
			}
			for _, e := range entries.Parse(f, data) {
				if got, _ := entries.Identity(e.Text); got == id {
					return e, h.rel(f), true
				}
			}
		}
	}
	return entries.Entry{}, "", false
}

// rel is an absolute path as the home's slash path.
func (h call) rel(abs string) string {
	if r, err := filepath.Rel(h.Layout.ZylosDir, abs); err == nil {
		return filepath.ToSlash(r)
	}
	return abs
}

func (h call) logf(format string, args ...any) {
	fmt.Fprintf(h.Log, "zylos-memory mcp: "+format+"\n", args...)
}
