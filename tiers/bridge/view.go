package bridge

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/records"
)

// View is the records.View of a home's default records root: records
// write ingests hand edits first (Sync) and renders each record it stores
// into its entry (Render), both under the write's lock.
func (h Home) View() records.View { return &view{h: h} }

type view struct {
	h Home
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
}

// Sync ingests hand edits. What it changes and the entries it leaves
// alone are notes on stderr: the write itself goes on.
func (v *view) Sync() error {
	rep, step, err := v.h.ingestFiles(false, true)
	v.step, v.wrote, v.stored, v.gone = step, map[string][]byte{}, map[string]bool{}, map[string]bool{}
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
	defer lessGC()()
	folder := filepath.Join(v.h.root(), records.Folder(s.category))
	if v.stored != nil {
		v.stored[filepath.Join(folder, r.ID+".json")] = true
		if renamedFrom != "" {
			v.gone[filepath.Join(folder, renamedFrom+".json")] = true
		}
	}
	files, err := v.takeFiles()
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
	home := s.homeFile(r)
	if at != nil && !at.archive {
		home = at.rel
	}
	switch {
	case r.Status() == records.StatusActive && at != nil && !at.archive:
		err = v.apply(at, func(sp *splice) { sp.render(found, r) }, false)
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

// takeFiles answers the files Sync read, once, else reads them.
func (v *view) takeFiles() ([]*viewFile, error) {
	if v.step != nil && v.step.files != nil {
		files := v.step.files
		v.step.files = nil
		return files, nil
	}
	files, _, err := v.h.loadFiles()
	return files, err
}

// apply plans one splice of f, proves it and writes the file; backup
// keeps the old bytes first (when an entry leaves the file).
func (v *view) apply(f *viewFile, plan func(*splice), backup bool) error {
	sp := f.splice()
	plan(sp)
	data, err := sp.result()
	if err != nil {
		return err
	}
	if err := v.h.writeFile(f, data, backup); err != nil {
		return err
	}
	if v.wrote != nil {
		v.wrote[f.rel] = data
	}
	return nil
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
	v.h.saveStamp(keys, step.problems)
}

// archiveFile is archive/decisions-YYYY.md or archive/projects-YYYY.md,
// the file consolidate --apply uses, by the year of the entry's date.
func (v *view) archiveFile(s *spec, r *records.Record) string {
	p := s.recordProjection(r)
	date := p.date
	if s.kind == tiers.KindProject {
		date = p.fields[1]
	}
	d, err := time.Parse(dateLayout, date)
	if err != nil {
		d = v.h.Now
	}
	return tiers.ArchiveFileFor(tiers.Entry{Kind: s.kind, Date: d})
}
