package bridge

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// View is the records.View of a home's default records root: records
// write ingests hand edits first (Sync) and renders each record it stores
// into its entry (Render), both under the write's lock.
func (h Memory) View() records.View { return &view{h: h} }

type view struct {
	h Memory
	// step is what Sync found when everything was in step (nil when it
	// changed something). Its files serve the Render that follows under
	// the same lock (a file changed in between is refused by the write,
	// as it would be after a fresh read); the rest serves Settled.
	step *inStep
	// wrote holds what Render wrote, by view file (relative to the
	// memory dir), and stored the record files the write stores.
	wrote  map[string][]byte
	stored map[string]bool
	gone   map[string]bool
	writes int // view files written
}

// Sync ingests hand edits. What it changes and the entries it leaves
// alone are notes on stderr: the write itself goes on.
func (v *view) Sync(held *records.Lock) error {
	res, err := v.h.ingestFiles(held, ingestForView)
	rep := res.report
	v.step, v.wrote, v.stored, v.gone = res.step, map[string][]byte{}, map[string]bool{}, map[string]bool{}
	for _, c := range rep.Changes {
		v.h.warn("[INGEST] " + c.String())
	}
	for _, p := range rep.Problems {
		v.h.warn("[WARN] " + p.String())
	}
	return err
}

// Render shows r in the markdown: an active record in its entry (added
// to its file when it has none, taken out of an archive file when it was
// there), a retired one nowhere, an archived decision or project in its
// archive file. It answers the reference file the entry belongs in.
func (v *view) Render(r *records.Record, renamedFrom string) (string, error) {
	s := specOfCategory(r.Category)
	if s == nil {
		return "", nil
	}
	folder := filepath.Join(v.h.root(), records.Folder(s.category))
	if v.stored != nil {
		v.stored[filepath.Join(folder, r.ID+".json")] = true
		if renamedFrom != "" {
			v.gone[filepath.Join(folder, renamedFrom+".json")] = true
		}
	}
	writes := v.writes
	home, err := v.render(s, r, renamedFrom)
	var changed *changedError
	if errors.As(err, &changed) && v.writes == writes {
		// Nothing of this record shown yet: the write can start over
		// from Sync, which takes the change in.
		changed.redo = true
		v.step = nil
	}
	return home, err
}

func (v *view) render(s *spec, r *records.Record, renamedFrom string) (string, error) {
	if home, ok, err := v.renderIndexed(s, r, renamedFrom); ok || err != nil {
		return home, err
	}
	files, unread, err := v.takeFiles()
	if err != nil {
		return "", err
	}
	var at *viewFile
	var found entry
	for _, f := range files {
		for _, e := range f.entries {
			if e.spec == s && e.id != "" && (e.id == r.ID || e.id == renamedFrom) && at == nil {
				if e.problem != "" {
					return "", fmt.Errorf("memory/%s:%d %q: %s; mend the entry first", f.rel, e.Line, e.Title, e.problem)
				}
				at, found = f, e
			}
		}
	}
	if at == nil {
		// Its entry may be in a file that was not read: adding one, or
		// changing the record alone, would tell a lie either way.
		for _, p := range unread {
			if entries.KindOf(p.File) == s.kind {
				return "", fmt.Errorf("%s: %s; the record's entry can be neither found nor placed, so nothing changed", p.File, p.Problem)
			}
		}
	}
	home := s.homeFile(r)
	if at != nil && !at.archive {
		home = at.rel
	}
	switch {
	case r.Status() == records.StatusActive && at != nil && !at.archive:
		err = v.renderInPlace(at, found, r, v.stepIndex(), false)
	case r.Status() == records.StatusActive:
		err = v.apply(fileNamed(&files, home), func(sp *splice) { sp.add(s, []*records.Record{r}) }, false)
		if err == nil && at != nil {
			err = v.apply(at, func(sp *splice) { sp.remove(found) }, true)
		}
	case r.Status() == records.StatusArchived && s.archives():
		target := v.archiveFile(s, r)
		if at != nil && at.rel == target {
			break
		}
		err = v.apply(fileNamed(&files, target), func(sp *splice) { sp.add(s, []*records.Record{r}) }, false)
		if err == nil && at != nil {
			err = v.apply(at, func(sp *splice) { sp.remove(found) }, true)
		}
	case at != nil && !at.archive:
		err = v.apply(at, func(sp *splice) { sp.remove(found) }, true)
	}
	if err != nil {
		return "", err
	}
	return "memory/" + home, nil
}

// takeFiles answers the files Sync read, once, else reads them, and the
// problems of those it could not read.
func (v *view) takeFiles() ([]*viewFile, []Problem, error) {
	if v.step != nil && v.step.files != nil {
		files, unread := v.step.files, v.step.unread
		v.step.files, v.step.unread = nil, nil
		return files, unread, nil
	}
	return v.h.loadFiles()
}

// renderIndexed renders r into its entry in place from the entry index
// Sync found (see indexed): the entry's file is read and only the entry
// is parsed. It answers false, having changed nothing, when that cannot
// be done or proven (no index, the file's key is not the one the index
// was made for, the entry is not there as the index says, the rewrite is
// not proven in place): then the whole file is read and parsed.
func (v *view) renderIndexed(s *spec, r *records.Record, renamedFrom string) (string, bool, error) {
	if v.step == nil || v.step.files != nil || r.Status() != records.StatusActive {
		return "", false, nil
	}
	xs := v.stepIndex()
	var x *indexed
	for i := range xs {
		if xs[i].category == s.category && (xs[i].id == r.ID || renamedFrom != "" && xs[i].id == renamedFrom) {
			x = &xs[i]
			break
		}
	}
	if x == nil || x.problem || !strings.HasPrefix(x.rel, "reference/") {
		return "", false, nil
	}
	src, ok := v.readAsKeyed(filepath.Join(v.h.Layout.MemoryDir(), filepath.FromSlash(x.rel)))
	if !ok {
		return "", false, nil
	}
	e, ok := parseEntryAt(x.rel, src, x.start, x.end, x.section)
	if !ok || e.id != x.id || e.problem != "" {
		return "", false, nil
	}
	f := &viewFile{rel: x.rel, src: src, entries: []entry{e}}
	if err := v.renderInPlace(f, e, r, xs, true); err != nil {
		if errors.Is(err, errNotInPlace) {
			return "", false, nil
		}
		return "", true, err
	}
	return "memory/" + x.rel, true, nil
}

// readAsKeyed reads the view file at path when it has, before and after
// the read, the key Sync took of it; false otherwise.
func (v *view) readAsKeyed(path string) ([]byte, bool) {
	before, err := fileKey(path)
	if err != nil || !slices.Contains(v.step.keys, path+" "+before) {
		return nil, false
	}
	src, err := tiers.ReadTierFile(path)
	if err != nil {
		return nil, false
	}
	if after, err := fileKey(path); err != nil || after != before {
		return nil, false
	}
	return src, true
}

// stepIndex is the entry index Sync left (see indexed), or nil.
func (v *view) stepIndex() []indexed {
	if v.step == nil || v.step.index == "" {
		return nil
	}
	xs, ok := parseIndex(v.step.index)
	if !ok {
		return nil
	}
	return xs
}

// renderInPlace rewrites entry e of f to show r, and moves the entry
// index xs (see stepIndex) on by what the rewrite added: the entries after
// e shift, e keeps its start and takes r's id.
// partial says f.entries holds e only (see splice.partial).
func (v *view) renderInPlace(f *viewFile, e entry, r *records.Record, xs []indexed, partial bool) error {
	was := len(f.src)
	sp, err := v.write(f, func(sp *splice) {
		sp.partial = partial
		sp.render(e, r)
	}, false)
	if err != nil {
		return err
	}
	if xs == nil || !sp.inPlace {
		// Proven by parsing the whole file, which does not prove the
		// sections of the entries after e.
		if v.step != nil {
			v.step.index = ""
		}
		return nil
	}
	delta := len(f.src) - was
	for i := range xs {
		switch x := &xs[i]; {
		case x.rel != f.rel || x.start < e.start:
		case x.start == e.start:
			x.end += delta
			x.id, x.problem = r.ID, false
		case x.start >= e.end:
			x.start += delta
			x.end += delta
		}
	}
	v.step.index = joinIndex(xs)
	return nil
}

// apply plans one splice of f, proves it and writes the file; backup
// keeps the old bytes first (when an entry leaves the file). The entry
// index is dropped: it no longer says where the entries are.
func (v *view) apply(f *viewFile, plan func(*splice), backup bool) error {
	if v.step != nil {
		v.step.index = ""
	}
	_, err := v.write(f, plan, backup)
	return err
}

func (v *view) write(f *viewFile, plan func(*splice), backup bool) (*splice, error) {
	sp := f.splice()
	plan(sp)
	data, err := sp.result()
	if err != nil {
		return nil, err
	}
	if err := v.h.writeFile(f, data, backup); err != nil {
		return nil, err
	}
	v.writes++
	if v.wrote != nil {
		v.wrote[f.rel] = data
	}
	return sp, nil
}

// Settled runs when the write is stored and indexed, still under its
// lock. When Sync found everything in step, the write's own changes are
// all that changed since: then the ingest stamp is renewed, so the next
// ingest (the one before the next records write) costs a few stats
// instead of reading every record. It is renewed only when that can be
// proven: every view file it did not write still has the key Sync saw,
// every file it wrote still holds exactly what it wrote (read after the
// keys were taken), and each record folder lists what it listed plus the
// records this write stored. Anything else leaves the stamp to the next
// full ingest.
func (v *view) Settled() {
	step := v.step
	v.step = nil
	if step == nil {
		return
	}
	names, err := v.h.recordNames()
	if err != nil {
		return
	}
	keys, err := v.h.stateKeys()
	if err != nil || len(keys) != len(step.keys) {
		return
	}
	for abs := range step.names {
		if !names[abs] && !v.gone[abs] {
			return
		}
	}
	for abs := range names {
		if !step.names[abs] && !v.stored[abs] {
			return
		}
	}
	folders := map[string]bool{}
	for i := range specs {
		folders[filepath.Join(v.h.root(), records.Folder(specs[i].category))] = true
	}
	mem := v.h.Layout.MemoryDir() + string(filepath.Separator)
	for i, key := range keys {
		path, _, _ := strings.Cut(key, " ")
		if old, _, _ := strings.Cut(step.keys[i], " "); old != path {
			return
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, mem))
		data, wrote := v.wrote[rel]
		switch {
		case folders[path] || path == v.h.Layout.ReferenceDir() || path == v.h.Layout.ArchiveDir():
			// A folder's key changes with what is renamed into it; its
			// files are checked one by one.
		case wrote:
			if now, err := regfile.ReadFile(path); err != nil || !bytes.Equal(now, data) {
				return
			}
		case key != step.keys[i]:
			return
		}
	}
	v.h.saveStamp(keys, step.problems, step.index)
}

// archiveFile is archive/decisions-YYYY.md or archive/projects-YYYY.md,
// the file consolidate --apply uses, by the year of the entry's date.
func (v *view) archiveFile(s *spec, r *records.Record) string {
	p := s.recordProjection(r)
	date := p.date
	if s.kind == entries.KindProject {
		date = p.fields[1]
	}
	d, err := time.Parse(dateLayout, date)
	if err != nil {
		d = v.h.Now
	}
	return tiers.ArchiveFileFor(entries.Entry{Kind: s.kind, Date: d})
}
