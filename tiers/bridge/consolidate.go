package bridge

import (
	"os"
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
func ApplyConsolidation(h Memory, now time.Time) (tiers.ApplyReport, Report, error) {
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
func (h Memory) HasView() bool {
	fi, err := os.Stat(h.Layout.ReferenceDir())
	return err == nil && fi.IsDir()
}

// IsReferenceFile reports whether rel, a path relative to the memory
// dir as the journal resolves it (tiers/home's Resolve), is a
// record-backed reference file: reference/decisions.md, not
// reference/notes/x.md nor reference/readme.txt.
func IsReferenceFile(rel string) bool {
	name, ok := strings.CutPrefix(rel, "reference/")
	return ok && !strings.Contains(name, "/") && strings.HasSuffix(name, ".md") && specOfKind(entries.KindOf(rel)) != nil
}
