package bridge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// Memory is the bridge over one zylos home: its reference tier, its archive
// files and its default records root ($ZYLOS_DIR/memory/records).
type Memory struct {
	Layout tiers.Layout
	Now    time.Time
	Warn   func(string) // notes for stderr; nil drops them
	// MaxCreates bounds the records an ingest creates for new entries
	// (0: no bound), so that a caller with a deadline (a hook,
	// consolidation) stays quick after thousands of entries were pasted
	// in; the rest wait, without an id, for the next ingest.
	MaxCreates int
	// Reason, when set, is the change-log summary of the records an
	// ingest updates, instead of "hand edit of memory/FILE" (a restore
	// says "restored from REV").
	Reason string
}

func (h Memory) root() string { return h.Layout.RecordsDir() }

func (h Memory) warn(s string) {
	if h.Warn != nil {
		h.Warn(s)
	}
}

// Problem is something the bridge leaves alone and reports: a malformed
// entry, a duplicate id, a file it will not read.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Title   string `json:"title,omitempty"`
	Problem string `json:"problem"`
}

func (p Problem) String() string {
	s := fmt.Sprintf("%s:%d", p.File, p.Line)
	if p.Title != "" {
		s += fmt.Sprintf(" %q", p.Title)
	}
	return s + ": " + p.Problem
}

func entryProblem(f *viewFile, e entry, why string) Problem {
	return Problem{File: "memory/" + f.rel, Line: e.Line, Title: e.Title, Problem: why}
}

// stored is a record file of a bridged category.
type stored struct {
	rec     *records.Record // nil until read
	id      string          // the file's name without .json
	abs     string
	data    []byte
	spec    *spec
	fileKey string // the file's key taken before it was read (see fileKey)
}

func (s *stored) key() string { return s.spec.category + "/" + s.id }

// loadRecords lists the record files of the bridged categories and reads
// them, keyed by category/id (the id being the file's name). A file whose
// key matches its pair (see PairsFile) is not read but held, for settle
// to decide once the entries are known.
func (h Memory) loadRecords(pairs map[string]pair) (map[string]*stored, []*stored, []Problem, error) {
	out := map[string]*stored{}
	var held []*stored
	var problems []Problem
	for i := range specs {
		s := &specs[i]
		dir := filepath.Join(h.root(), records.Folder(s.category))
		des, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("read records: %w", err)
		}
		for _, de := range des {
			name := de.Name()
			if !de.Type().IsRegular() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
				continue
			}
			st := &stored{id: strings.TrimSuffix(name, ".json"), abs: filepath.Join(dir, name), spec: s}
			if st.fileKey, err = fileKey(st.abs); err != nil {
				return nil, nil, nil, fmt.Errorf("read records: %w", err)
			}
			if p, ok := pairs[st.key()]; ok && p.key == st.fileKey {
				held = append(held, st)
				continue
			}
			problem, err := h.readStored(st)
			if err != nil {
				return nil, nil, nil, err
			}
			if problem != nil {
				problems = append(problems, *problem)
				continue
			}
			out[st.key()] = st
		}
	}
	return out, held, problems, nil
}

// readStored reads and parses a listed record file; one that does not
// parse is a problem.
func (h Memory) readStored(st *stored) (*Problem, error) {
	data, err := regfile.ReadFile(st.abs)
	if err != nil {
		return nil, fmt.Errorf("read records: %w", err)
	}
	rec, err := records.ParseRecord(data)
	if err != nil {
		return &Problem{File: records.IndexPath(h.root(), st.abs), Line: 1, Problem: "unreadable record: " + err.Error()}, nil
	}
	rec.ID = st.id
	st.rec, st.data = rec, data
	return nil, nil
}

// viewFile is one reference or archive file as read.
type viewFile struct {
	rel     string // relative to the memory dir: reference/decisions.md
	src     []byte
	entries []entry
	archive bool
	missing bool // does not exist yet
}

// loadFiles reads the reference files that hold record-backed entries,
// and the decision and project archive files. A path that is not a
// regular file (a directory, a symlink) or is too large to parse is
// reported, never read.
func (h Memory) loadFiles() ([]*viewFile, []Problem, error) {
	var out []*viewFile
	var problems []Problem
	for _, dir := range []string{"reference", "archive"} {
		des, err := os.ReadDir(filepath.Join(h.Layout.MemoryDir(), dir))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", dir, err)
		}
		sort.Slice(des, func(i, j int) bool { return des[i].Name() < des[j].Name() })
		for _, de := range des {
			name := de.Name()
			rel := dir + "/" + name
			if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md") || specOfKind(entries.KindOf(rel)) == nil {
				continue
			}
			if dir == "archive" && (!strings.Contains(name, "-") || !specOfKind(entries.KindOf(rel)).archives()) {
				continue
			}
			if !de.Type().IsRegular() {
				problems = append(problems, Problem{File: "memory/" + rel, Line: 1, Problem: "not a regular file (a directory or a symlink); not read"})
				continue
			}
			src, err := tiers.ReadTierFile(filepath.Join(h.Layout.MemoryDir(), rel))
			var unparsed *entries.UnparsedError
			if errors.As(err, &unparsed) {
				why := unparsed.Reason
				if unparsed.TooLarge {
					why += " (" + splitHint(rel) + ")"
				}
				problems = append(problems, Problem{File: "memory/" + rel, Line: 1, Problem: why})
				continue
			}
			if err != nil {
				return nil, nil, fmt.Errorf("read %s: %w", rel, err)
			}
			out = append(out, &viewFile{rel: rel, src: src, entries: parseEntries(rel, src, true), archive: dir == "archive"})
		}
	}
	return out, problems, nil
}

// newFileHeader starts a reference file the bridge creates.
func newFileHeader(rel string) string {
	switch entries.KindOf(rel) {
	case entries.KindProject:
		return "# Projects\n\n## Active\n\n## Completed\n"
	case entries.KindPreference:
		return "# User Preferences\n"
	case entries.KindGeneric:
		return "# Notes\n"
	}
	return "# Decisions Log\n"
}

// homeFile is the reference file a record's entry belongs in: the last
// reference file of its kind named in related_files (where it was seen
// last), else its kind's default file.
func (s *spec) homeFile(r *records.Record) string {
	for i := len(r.RelatedFiles) - 1; i >= 0; i-- {
		if rel, ok := strings.CutPrefix(r.RelatedFiles[i], "memory/"); ok && s.isReferenceFile(rel) {
			return rel
		}
	}
	return s.file
}

// hasView reports whether the record was shown in the reference tier
// once: it names a reference file of its kind.
func (s *spec) hasView(r *records.Record) bool {
	for _, f := range r.RelatedFiles {
		rel, ok := strings.CutPrefix(f, "memory/")
		if ok && s.isReferenceFile(rel) {
			return true
		}
	}
	return false
}

func (s *spec) isReferenceFile(rel string) bool {
	name, ok := strings.CutPrefix(rel, "reference/")
	return ok && !strings.Contains(name, "/") && entries.KindOf(rel) == s.kind
}

func (s *spec) namesFile(r *records.Record, rel string) bool {
	for _, f := range r.RelatedFiles {
		if f == "memory/"+rel {
			return true
		}
	}
	return false
}

// writeFile replaces a view file with data, keeping lines appended to it
// since it was read as f.src (an agent's >>) and refusing any other change
// made meanwhile (see tiers.Layout.Rewrite). With backup, the old file is
// kept under memory/.state/backups/ whatever happened to it.
func (h Memory) writeFile(f *viewFile, data []byte, backup bool) error {
	path := filepath.Join(h.Layout.MemoryDir(), f.rel)
	changed := &changedError{rel: f.rel}
	if f.missing {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("write %s: %w", f.rel, err)
		}
		switch err := atomicfile.CreateExclusive(path, data, 0o644); {
		case errors.Is(err, fs.ErrExist):
			return changed
		case err != nil:
			return fmt.Errorf("write %s: %w", f.rel, err)
		}
	} else {
		_, err := h.Layout.Rewrite(path, f.src, data, backup, h.Now)
		if errors.Is(err, tiers.ErrChangedSinceRead) || errors.Is(err, fs.ErrNotExist) {
			return changed
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", f.rel, err)
		}
	}
	// Parsed again only if spliced again; what was carried over is read
	// back then, as the next ingest's business.
	f.src, f.entries, f.missing = data, nil, false
	return nil
}

// changedError says a view file changed, other than by appending, while
// the bridge was writing it: nothing was written to it.
type changedError struct {
	rel string
	// redo says nothing else was written either, so the whole records
	// write can be done again (see records.ErrViewChanged).
	redo bool
}

func (e *changedError) Error() string {
	return fmt.Sprintf("memory/%s changed while it was being updated; nothing written to it, run again", e.rel)
}

func (e *changedError) Is(target error) bool { return e.redo && target == records.ErrViewChanged }

// splice starts a splice of f, reusing its parsed entries.
func (f *viewFile) splice() *splice {
	sp := newSplice(f.rel, f.src)
	if !f.missing {
		sp.parsed = f.entries
	}
	return sp
}

// fileNamed returns the loaded file rel, or a new empty one (added to
// files) when it does not exist yet.
func fileNamed(files *[]*viewFile, rel string) *viewFile {
	for _, f := range *files {
		if f.rel == rel {
			return f
		}
	}
	var src []byte
	if strings.HasPrefix(rel, "archive/") {
		src = []byte(tiers.ArchiveHeader(rel))
	} else {
		src = []byte(newFileHeader(rel))
	}
	f := &viewFile{rel: rel, src: src, missing: true, archive: strings.HasPrefix(rel, "archive/")}
	*files = append(*files, f)
	return f
}
