package records

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/lazy"
)

// immutable fields may never change through update (the claude-memory plugin).
var immutable = []string{"created_at", "schema_version", "category", "id"}

// lifecycleFields belong to retire/archive/restore and are carried over
// from the stored record whatever the update input says.
var lifecycleFields = []string{"retired_at", "retired_reason", "archived_at", "archived_reason"}

// merger applies the mechanical merge protections of an update: it
// compares the stored record with the proposed one and either rejects
// the update with a MERGE_ERROR or completes the new record.
type merger struct {
	root     string
	old, new doc
	now      time.Time
	warn     func(string)
	fromTeam string // the write's FromTeam
}

func (m *merger) run() error {
	for _, step := range []func() error{m.keepImmutable, m.keepStatus, m.mergeTags, m.mergeRelatedFiles, m.mergeTeam, m.mergeChanges} {
		if err := step(); err != nil {
			return err
		}
	}
	if n, ok := m.old.number("times_updated"); ok {
		m.new["times_updated"] = int(n) + 1
	} else {
		m.new["times_updated"] = 1
	}
	m.new["updated_at"] = stamp(m.now)
	return nil
}

func mergeError(field, rule string, kv ...string) *Error {
	return newError(ErrMerge, append([]string{"field", field, "rule", rule}, kv...)...)
}

func (m *merger) keepImmutable() error {
	for _, f := range immutable {
		nv, present := m.new[f]
		if !present || nv == "" {
			m.new[f] = m.old[f]
			continue
		}
		if !reflect.DeepEqual(nv, m.old[f]) {
			return mergeError(f, "immutable", "old", quote(m.old[f]), "new", quote(nv),
				"fix", fmt.Sprintf("Keep %s as %s", f, quote(m.old[f])))
		}
	}
	return nil
}

func (m *merger) keepStatus() error {
	if nv, ok := m.new["record_status"]; ok && nv != m.old.status() {
		return mergeError("record_status", "record_status cannot change through update",
			"old", quote(m.old.status()), "new", quote(nv),
			"fix", "Use --action retire, archive, unarchive or restore")
	}
	m.new["record_status"] = m.old.status()
	for _, f := range lifecycleFields {
		if v, ok := m.old[f]; ok {
			m.new[f] = v
		} else {
			delete(m.new, f)
		}
	}
	return nil
}

// mergeTags: grow-only below the cap; at the cap an old tag may be
// evicted only to make room for a new one; above the cap the oldest
// (last in order) old tags are evicted. Evictions go into changes[].
func (m *merger) mergeTags() error {
	old, proposed := m.old.strings("tags"), m.new.strings("tags")
	added, removed := minus(proposed, old), minus(old, proposed)
	if len(removed) > 0 {
		switch {
		case len(old) < TagCap:
			return mergeError("tags", fmt.Sprintf("grow-only below the cap of %d", TagCap),
				"removed", quote(removed), "fix", "Keep every existing tag; add new ones only")
		case len(added) == 0:
			return mergeError("tags", "at the cap, a tag may be evicted only when a new tag is added",
				"removed", quote(removed), "fix", "Keep every existing tag, or add the new tag that replaces it")
		case len(proposed) < len(old):
			return mergeError("tags", "eviction may not shrink the tag set",
				"removed", quote(removed), "added", quote(added), "fix", "Evict no more tags than you add")
		}
	}
	kept := minus(proposed, added) // old tags still present
	evicted := removed
	for len(kept)+len(added) > TagCap && len(kept) > 0 {
		evicted = append(evicted, kept[len(kept)-1])
		kept = kept[:len(kept)-1]
	}
	if len(added) > TagCap {
		evicted = append(evicted, added[TagCap:]...)
		added = added[:TagCap]
	}
	m.new["tags"] = anyList(sortedSet(append(kept, added...)))
	if len(evicted) > 0 {
		sort.Strings(evicted)
		m.new.logChange(Change{Date: stamp(m.now), Field: "tags",
			Summary:  fmt.Sprintf("Tags evicted at cap %d: %s", TagCap, strings.Join(evicted, ", ")),
			OldValue: anyList(old), NewValue: m.new["tags"]})
	}
	return nil
}

// mergeRelatedFiles: grow-only, except paths that no longer exist.
func (m *merger) mergeRelatedFiles() error {
	proposed := m.new.strings("related_files")
	for _, p := range minus(m.old.strings("related_files"), proposed) {
		if m.exists(p) {
			return mergeError("related_files", "grow-only; only dangling paths may be removed",
				"removed", quote(p), "fix", "Keep "+p+" (it still exists)")
		}
	}
	if _, ok := m.new["related_files"]; ok || len(proposed) > 0 {
		seen := map[string]bool{}
		var out []string
		for _, p := range proposed {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
		m.new["related_files"] = anyList(out)
	}
	return nil
}

func (m *merger) exists(p string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(Base(m.root), p)
	}
	_, err := os.Stat(p)
	return err == nil
}

// mergeChanges: append-only; scalar content changes are logged
// automatically; at least one new entry is required; FIFO at the cap.
func (m *merger) mergeChanges() error {
	oldN, newChanges := len(m.old.list("changes")), m.new.list("changes")
	if len(newChanges) < oldN {
		return mergeError("changes", "append-only", "old_count", fmt.Sprint(oldN), "new_count", fmt.Sprint(len(newChanges)),
			"fix", "Keep every existing changes[] entry and append new ones")
	}
	m.new["changes"] = newChanges
	m.logContentChanges()
	if len(m.new.list("changes")) <= oldN {
		return mergeError("changes", "at least one new change entry is required",
			"old_count", fmt.Sprint(oldN),
			"fix", `Append {"date": "...", "summary": "what changed"} to changes[]`)
	}
	m.new.capChanges()
	return nil
}

func (m *merger) logContentChanges() {
	oldC, newC := m.old.content(), m.new.content()
	keys := make([]string, 0, len(oldC))
	for k := range oldC {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ov, nv := oldC[k], newC[k]
		if ol, ok := ov.([]any); ok {
			if nl, ok := nv.([]any); ok && len(nl) < len(ol) {
				m.warn(fmt.Sprintf("[WARN] content.%s shrank from %d to %d items", k, len(ol), len(nl)))
			}
			continue
		}
		if _, isObj := ov.(map[string]any); isObj || nv == nil || reflect.DeepEqual(ov, nv) {
			continue
		}
		m.new.logChange(Change{Date: stamp(m.now), Field: "content." + k,
			Summary: "Updated content." + k, OldValue: ov, NewValue: nv})
	}
}

var word = lazy.Regexp(`[a-z0-9]+`)

// titleChange is the share of distinct words not common to both titles
// (0 = same words, 1 = nothing in common).
func titleChange(a, b string) float64 {
	wa, wb := word().FindAllString(strings.ToLower(a), -1), word().FindAllString(strings.ToLower(b), -1)
	union := sortedSet(append(append([]string(nil), wa...), wb...))
	if len(union) == 0 {
		return 0
	}
	common := len(sortedSet(wa)) + len(sortedSet(wb)) - len(union)
	return 1 - float64(common)/float64(len(union))
}
