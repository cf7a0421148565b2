package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// ApplyConsolidation is consolidate --apply through the records. Under the
// records lock it ingests hand edits, lets tiers move the stale decisions
// and old completed projects (their id comments with them) into the
// archive files, and ingests again: each moved entry's record is archived
// (archived_at, a change naming the archive file). A home without a
// reference tier only gets the tiers' moves. Like the moves, it is
// idempotent: a second run finds nothing to do.
func ApplyConsolidation(h Home, now time.Time) (tiers.ApplyReport, Report, error) {
	if !h.HasView() {
		done, err := tiers.ApplyConsolidation(h.Layout, now)
		return done, Report{}, err
	}
	if h.MaxCreates == 0 {
		h.MaxCreates = BoundedCreates
	}
	lock, err := records.AcquireWriteLock(h.root(), h.warn)
	if err != nil {
		return tiers.ApplyReport{}, Report{}, err
	}
	defer lock.Release()
	before, err := h.ingest(lock, false)
	if err != nil {
		return tiers.ApplyReport{}, before, err
	}
	done, err := tiers.ApplyConsolidation(h.Layout, now)
	if err != nil {
		return done, before, err
	}
	after, err := h.ingest(lock, false)
	after.Changes = append(before.Changes, after.Changes...)
	return done, after, err
}

// BoundedCreates is the MaxCreates of consolidation and of the
// PostToolUse hook.
const BoundedCreates = 100

// HasView reports whether the home has a markdown view of its records: a
// memory/reference directory.
func (h Home) HasView() bool {
	fi, err := os.Stat(h.Layout.ReferenceDir())
	return err == nil && fi.IsDir()
}

// ReferenceFile reports whether path (relative paths from cwd) is a
// record-backed reference file of the home, answering its name relative
// to the memory dir ("reference/decisions.md").
func (h Home) ReferenceFile(path, cwd string) (string, bool) {
	if path == "" {
		return "", false
	}
	if !filepath.IsAbs(path) {
		if cwd == "" {
			return "", false // relative to a directory the caller does not know
		}
		path = filepath.Join(cwd, path)
	}
	path = filepath.Clean(path)
	rel := "reference/" + filepath.Base(path)
	if !strings.HasSuffix(rel, ".md") || specOfKind(entries.KindOf(rel)) == nil {
		return "", false
	}
	dir, ref := filepath.Dir(path), h.Layout.ReferenceDir()
	if dir == ref {
		return rel, true
	}
	realDir, err1 := filepath.EvalSymlinks(dir)
	realRef, err2 := filepath.EvalSymlinks(ref)
	return rel, err1 == nil && err2 == nil && realDir == realRef
}
