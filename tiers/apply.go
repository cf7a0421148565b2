package tiers

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/internal/flock"
	"github.com/zylos/zylos-memory/tiers/entries"
)

// Move is one thing `consolidate --apply` archived.
type Move struct {
	Kind  entries.Kind // KindSessionLine for a whole session log
	From  string       // file relative to the memory dir
	Line  int          // line of an entry; 0 for a whole file
	Title string
	To    string // file relative to the memory dir
}

// ApplyReport is what `consolidate --apply` did: moves in the order made,
// and the backups of the files it rewrote.
type ApplyReport struct {
	Moves   []Move
	Backups []string // relative to the memory dir
}

// ApplyConsolidation archives what the consolidation report names: session
// logs older than 30 days (moved whole to archive/, never over an existing
// file), superseded or archived decisions older than 90 days (appended to
// archive/decisions-YYYY.md) and projects completed more than 30 days ago
// (appended to archive/projects-YYYY.md).
//
// Nothing is deleted and nothing is lost to a crash: an entry is appended
// to its archive file before its source file is rewritten, an entry found
// in the archive already is not appended twice, every rewritten file is
// backed up first, and a source file is rewritten only when the cut
// entries plus what remains account for every byte of it. A second run
// finds nothing to do. now must be in the layout's location.
func ApplyConsolidation(l Layout, now time.Time) (ApplyReport, error) {
	unlock, err := flock.Acquire(filepath.Join(l.StateDir(), "consolidate.lock"), "another consolidate --apply")
	if err != nil {
		return ApplyReport{}, err
	}
	defer unlock()
	a := &applier{l: l, now: now}
	if a.today, err = l.today(now); err != nil {
		return ApplyReport{}, err
	}
	if err := os.MkdirAll(l.ArchiveDir(), 0o755); err != nil {
		return ApplyReport{}, fmt.Errorf("create archive dir: %w", err)
	}
	atomicfile.Sweep(l.ReferenceDir(), l.ArchiveDir(), l.SessionsDir())
	if err := a.archiveSessions(); err != nil {
		return a.report, err
	}
	names, err := tierFiles(l.ReferenceDir())
	if err != nil {
		return a.report, err
	}
	for _, name := range names {
		if k := entries.KindOf(name); k == entries.KindDecision || k == entries.KindProject {
			if err := a.archiveEntries("reference/" + name); err != nil {
				return a.report, err
			}
		}
	}
	return a.report, nil
}

type applier struct {
	l      Layout
	now    time.Time
	today  time.Time
	report ApplyReport
}

// archiveEntries moves the stale decisions or old completed projects of
// one reference file into their archive files, then rewrites it.
func (a *applier) archiveEntries(rel string) error {
	path := filepath.Join(a.l.MemoryDir(), rel)
	src, err := ReadTierFile(path)
	var unparsed *entries.UnparsedError
	if errors.As(err, &unparsed) {
		return nil // reported as malformed; nothing in it is moved
	}
	if err != nil {
		return fmt.Errorf("archive entries: %w", err)
	}
	es := entries.Parse(rel, src)
	var moving []entries.Entry
	for _, e := range es {
		if isStaleDecision(e, a.today) || isOldCompletedProject(e, a.today) {
			moving = append(moving, e)
		}
	}
	if len(moving) == 0 {
		return nil
	}
	rest, err := cutEntries(rel, src, es, moving)
	if err != nil {
		return err
	}
	for _, target := range archiveTargets(moving) {
		if err := a.appendToArchive(target, moving); err != nil {
			return err
		}
	}
	crashpoint.At("consolidate-archived")
	if err := a.rewrite(path, src, rest); err != nil {
		return err
	}
	for _, e := range moving {
		a.report.Moves = append(a.report.Moves, Move{Kind: e.Kind, From: rel, Line: e.Line, Title: e.Title, To: ArchiveFileFor(e)})
	}
	return nil
}

// archiveTargets lists the archive files the entries go to, sorted.
func archiveTargets(es []entries.Entry) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range es {
		if t := ArchiveFileFor(e); !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// rewrite backs up the source file and replaces it with rest, keeping
// the lines appended to it meanwhile (see Layout.Rewrite).
func (a *applier) rewrite(path string, src, rest []byte) error {
	backup, err := a.l.Rewrite(path, src, rest, true, a.now)
	if backup != "" {
		a.report.Backups = append(a.report.Backups, a.rel(backup))
	}
	switch {
	case errors.Is(err, ErrChangedSinceRead):
		return fmt.Errorf("archive entries: %s changed while consolidating; nothing removed from it, run again", a.rel(path))
	case err != nil && backup != "":
		return fmt.Errorf("archive entries: %s: %w (its old lines are in %s)", a.rel(path), err, a.rel(backup))
	case err != nil:
		return fmt.Errorf("archive entries: %w", err)
	}
	return nil
}

func (a *applier) backUp(path string, data []byte) error {
	backup, err := a.l.BackUp(path, data, a.now)
	if err != nil {
		return err
	}
	a.report.Backups = append(a.report.Backups, a.rel(backup))
	return nil
}

// rel is path relative to the memory dir, as reports cite files.
func (a *applier) rel(path string) string {
	if r, err := filepath.Rel(a.l.MemoryDir(), path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

// WriteText prints one line per move and backup, or says there was
// nothing to do.
func (r ApplyReport) WriteText(w io.Writer) error {
	var err error
	printf := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	for _, m := range r.Moves {
		if m.Line == 0 {
			printf("archived session %s -> %s\n", m.From, m.To)
		} else {
			printf("archived %s %s:%d %q -> %s\n", m.Kind, m.From, m.Line, m.Title, m.To)
		}
	}
	for _, b := range r.Backups {
		printf("backup %s\n", b)
	}
	if len(r.Moves) == 0 {
		printf("Nothing to archive.\n")
	}
	return err
}
