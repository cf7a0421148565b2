package bridge

import (
	"fmt"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/records"
)

// View is the records.View of a home's default records root: records
// write ingests hand edits first (Sync) and renders each record it stores
// into its entry (Render), both under the write's lock.
func (h Home) View() records.View { return &view{h: h} }

type view struct {
	h Home
	// files are the view files as Sync read them, for the Render that
	// follows under the same lock (nil: read them). A file changed in
	// between is refused by the write, as it would be after a fresh read.
	files []*viewFile
}

// Sync ingests hand edits. What it changes and the entries it leaves
// alone are notes on stderr: the write itself goes on.
func (v *view) Sync() error {
	rep, files, err := v.h.ingestFiles(false)
	v.files = files
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
	if files := v.files; files != nil {
		v.files = nil
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
	return v.h.writeFile(f, data, backup)
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
