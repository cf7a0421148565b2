package bridge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// claim finds which entry holds each id: in a reference file, the
// first one that says what the id's record says, else the first one;
// in an archive file only when no reference file names the id. Every
// other entry naming the id (an entry copied with its id comment, an id
// changed by hand to one in use) is a new entry, to be given an id of
// its own. It answers the records of held it had to read to tell.
func (in *ingester) claim(held []*stored) ([]*stored, error) {
	named := map[string][]*entry{}
	var keys []string
	for _, archive := range []bool{false, true} {
		for _, f := range in.files {
			if f.archive != archive {
				continue
			}
			for i := range f.entries {
				e := &f.entries[i]
				if e.id == "" {
					continue
				}
				key := e.spec.category + "/" + e.id
				if named[key] == nil {
					keys = append(keys, key)
				}
				named[key] = append(named[key], e)
			}
		}
	}
	in.ids.holders = map[string]*entry{}
	for _, key := range keys {
		es := named[key]
		holder := es[0]
		if len(es) > 1 {
			var err error
			if held, err = in.readHeld(key, held); err != nil {
				return nil, err
			}
			if st := in.recs[key]; st != nil {
				for _, e := range es {
					if strings.HasPrefix(e.File, "archive/") {
						break // an archived entry never wins over a reference one
					}
					if e.problem == "" && e.spec.same(e.Entry, st.rec) {
						holder = e
						break
					}
				}
			}
		}
		in.ids.holders[key] = holder
		in.ids.claimed[key] = true
		for _, e := range es {
			if e != holder {
				e.takenBy = holder
			}
		}
	}
	return held, nil
}

// readHeld reads the held record of key now (see settle), answering the
// others.
func (in *ingester) readHeld(key string, held []*stored) ([]*stored, error) {
	for i, st := range held {
		if st.key() != key {
			continue
		}
		problem, err := in.readStored(st)
		if err != nil {
			return nil, err
		}
		if problem != nil {
			in.report.Problems = append(in.report.Problems, *problem)
		} else {
			in.recs[key] = st
		}
		return append(held[:i:i], held[i+1:]...), nil
	}
	return held, nil
}

// takenID is the taken id entry e names, or "".
func takenID(e entry) string {
	if e.takenBy == nil {
		return ""
	}
	return e.id
}

// takenDetail is the detail of a change made for entry e: why an entry
// naming a taken id is a new entry comes first.
func takenDetail(e entry, detail string) string {
	if e.takenBy == nil {
		return detail
	}
	h := e.takenBy
	note := fmt.Sprintf("its id comment named %s, the id of %q (memory/%s:%d)", e.id, h.Title, h.File, h.Line)
	if detail == "" {
		return note + ": the entry is a record of its own"
	}
	return note + "; " + detail
}

func (in *ingester) entry(f *viewFile, e entry) error {
	if e.problem != "" {
		if !f.archive {
			in.report.Problems = append(in.report.Problems, entryProblem(f, e, e.problem+" (left alone)"))
		}
		return nil
	}
	if f.archive {
		if e.takenBy != nil {
			return nil
		}
		return in.archivedEntry(f, e)
	}
	if e.id == "" || e.takenBy != nil {
		return in.join(f, e)
	}
	st := in.recs[e.spec.category+"/"+e.id]
	if st == nil {
		return in.create(f, e, e.id, "created", "record "+e.id+" was missing; made from the entry")
	}
	switch st.rec.Status() {
	case records.StatusRetired:
		if err := in.lifecycle(f, e, st, records.ActionRestore, "restored", "entry is back in memory/"+f.rel); err != nil {
			return err
		}
	case records.StatusArchived:
		if err := in.lifecycle(f, e, st, records.ActionUnarchive, "unarchived", "entry is back in memory/"+f.rel); err != nil {
			return err
		}
	}
	return in.update(f, e, st, false)
}

// join matches an entry without an id to a record of its category and
// title that no entry names: the same content joins them, different
// content keeps both (the entry gets a record of its own).
func (in *ingester) join(f *viewFile, e entry) error {
	title := strings.ToLower(records.SanitizeTitle(e.Title))
	for _, st := range in.sortedRecords() {
		if st.spec != e.spec || in.ids.claimed[st.key()] || st.rec.Status() != records.StatusActive ||
			strings.ToLower(st.rec.Title) != title {
			continue
		}
		in.ids.claimed[st.key()] = true
		if e.spec.same(e.Entry, st.rec) {
			if !in.edits.fits(f, renderGrowth(f, e, st.id, e.spec.recordProjection(st.rec).team)) {
				in.report.Problems = append(in.report.Problems, entryProblem(f, e, in.overflow(f, "its id comment")))
				return nil
			}
			in.note(Change{Action: "joined", Target: in.shown(st.abs), File: "memory/" + f.rel, Line: e.Line, Title: e.Title,
				Detail: takenDetail(e, "the record and the entry say the same; the entry now carries its id"), IDWas: takenID(e)})
			in.edits.splice(f).render(e, st.rec)
			return in.update(f, e, st, true)
		}
		in.ids.claimed[st.key()] = false // not this entry's: it keeps an entry of its own
		in.ids.keep[st.key()] = true
		return in.create(f, e, in.newID(e), "conflict",
			fmt.Sprintf("differs from %s: both kept, the entry as a record of its own", in.shown(st.abs)))
	}
	return in.create(f, e, in.newID(e), "created", "")
}

// create makes a record of entry e with id and writes the id into the
// entry.
func (in *ingester) create(f *viewFile, e entry, id, action, detail string) error {
	if in.MaxCreates > 0 && in.records.created >= in.MaxCreates {
		in.report.Deferred++
		return nil
	}
	// The record made of the entry shows a private mark (by hand) as the
	// entry's team comment, and nothing else of it.
	team := ""
	if e.hasTeamLine() {
		team = entries.TeamComment(entries.Team{Private: e.spec.entryProjection(e.Entry).private})
	}
	if e.id != id && !in.edits.fits(f, renderGrowth(f, e, id, team)) {
		in.report.Problems = append(in.report.Problems, entryProblem(f, e, in.overflow(f, "its id comment")))
		return nil
	}
	in.records.created++
	abs := filepath.Join(in.root(), records.Folder(e.spec.category), id+".json")
	in.ids.taken[e.spec.category+"/"+id] = true
	in.ids.claimed[e.spec.category+"/"+id] = true
	d := e.spec.newDoc(e.Entry, id, f.rel, in.stamp())
	c := Change{Action: action, Target: in.shown(abs), File: "memory/" + f.rel, Line: e.Line, Title: e.Title,
		Detail: takenDetail(e, detail), IDWas: takenID(e)}
	if in.dry {
		in.note(c)
		return nil
	}
	if err := in.records.create(abs, e.spec.category, d); err != nil {
		return in.failed(f, e, err)
	}
	rec, err := records.ReadRecord(abs)
	if err != nil {
		return err
	}
	in.note(c)
	if e.id != id {
		in.edits.splice(f).render(e, rec)
		return nil
	}
	return in.showTeam(f, e, abs, rec, false)
}

// update brings st in line with entry e when they differ or the record
// does not name e's file yet.
// joined says the entry was just joined to st (and reported so).
func (in *ingester) update(f *viewFile, e entry, st *stored, joined bool) error {
	same, named := e.spec.same(e.Entry, st.rec), e.spec.namesFile(st.rec, f.rel)
	if same && named && e.spec.homeFile(st.rec) == f.rel {
		return in.showTeam(f, e, st.abs, st.rec, true)
	}
	summary, action := "hand edit of memory/"+f.rel, "updated"
	if in.Reason != "" {
		summary = in.Reason
	}
	if same {
		summary, action = "entry found in memory/"+f.rel, "moved"
	}
	c := Change{Action: action, Target: in.shown(st.abs), File: "memory/" + f.rel, Line: e.Line, Title: e.Title, Detail: summary}
	if in.dry {
		in.note(c)
		return nil
	}
	d, err := e.spec.updateDoc(st, e.Entry, f.rel, in.stamp(), summary)
	if err != nil {
		return err
	}
	if err := in.records.update(st.abs, d, records.Hash(st.data)); err != nil {
		return in.failed(f, e, err)
	}
	if !joined && (e.hasTeamLine() || st.rec.Team != nil) {
		// The write may have changed what the team comment shows (a
		// private mark taken in, a conflict the edit resolved).
		if err := in.reread(st); err != nil {
			return err
		}
		if err := in.showTeam(f, e, st.abs, st.rec, false); err != nil {
			return err
		}
	}
	if same && (named || joined) {
		return nil // the entry is where the record says, or said so already
	}
	in.note(c)
	return nil
}

// showTeam puts the team comment of rec (stored at abs) on entry e when
// the entry says what rec says but shows another team comment: the line
// is the record's to show, so one edited or removed by hand (its from or
// conflict; a private mark is taken in first) or changed by the record's
// write is written again. noted reports it as a change of its own.
func (in *ingester) showTeam(f *viewFile, e entry, abs string, rec *records.Record, noted bool) error {
	// shown's team comment is the record's: no rendering need be parsed
	// to tell that the entry shows it.
	if line, _ := recordTeam(rec); teamLineOf(e.Text) == line {
		return nil
	}
	want := e.spec.shown(rec)
	if e.spec.entryProjection(e.Entry).said() != want.said() {
		return nil
	}
	if !in.edits.fits(f, teamGrowth(f, e, want.team)) {
		in.report.Problems = append(in.report.Problems, entryProblem(f, e, in.overflow(f, "its team comment")))
		return nil
	}
	if noted {
		in.note(Change{Action: "rendered", Target: in.shown(abs), File: "memory/" + f.rel, Line: e.Line, Title: e.Title, Detail: "its team comment shows the record's team again"})
	}
	if !in.dry {
		in.edits.splice(f).render(e, rec)
	}
	return nil
}

// lifecycle runs action (restore, unarchive, archive) on st because of
// entry e.
func (in *ingester) lifecycle(f *viewFile, e entry, st *stored, action records.Action, done, why string) error {
	c := Change{Action: done, Target: in.shown(st.abs), File: "memory/" + f.rel, Line: e.Line, Title: e.Title, Detail: why}
	if in.dry {
		in.note(c)
		return nil
	}
	if err := in.records.move(st.abs, action, why); err != nil {
		return in.failed(f, e, err)
	}
	in.note(c)
	return in.reread(st)
}

// archivedEntry archives the record of an entry found in an archive file
// (consolidation moved it there, or a hand did) while it is still active.
func (in *ingester) archivedEntry(f *viewFile, e entry) error {
	if e.id == "" {
		return nil
	}
	st := in.recs[e.spec.category+"/"+e.id]
	if st == nil || st.rec.Status() != records.StatusActive {
		return nil
	}
	return in.lifecycle(f, e, st, records.ActionArchive, "archived", "entry moved to memory/"+f.rel)
}

// unclaimed handles the active records no entry names: one that was shown
// once lost its entry by hand and is retired; one that never was (or
// kept in a conflict) is rendered into its file.
func (in *ingester) unclaimed() error {
	var render []*stored
	for _, st := range in.sortedRecords() {
		if in.ids.claimed[st.key()] || st.rec.Status() != records.StatusActive {
			continue
		}
		file := "memory/" + st.spec.homeFile(st.rec)
		if in.unreadable(file) {
			continue
		}
		if st.spec.hasView(st.rec) && !in.ids.keep[st.key()] {
			why := "entry removed from " + file
			if in.Reason != "" {
				why += " (" + in.Reason + ")"
			}
			c := Change{Action: "retired", Target: in.shown(st.abs), File: file, Title: st.rec.Title, Detail: why}
			if !in.dry {
				if err := in.records.move(st.abs, records.ActionRetire, why); err != nil {
					in.report.Problems = append(in.report.Problems, Problem{File: in.shown(st.abs), Line: 1, Title: st.rec.Title, Problem: err.Error()})
					continue
				}
			}
			in.note(c)
			continue
		}
		render = append(render, st)
	}
	for _, st := range render {
		file := st.spec.homeFile(st.rec)
		f := fileNamed(&in.files, file)
		if !in.edits.fits(f, len(st.spec.block(st.rec, lineEnding(f.src)))+4*len(lineEnding(f.src))) {
			in.report.Problems = append(in.report.Problems, Problem{File: in.shown(st.abs), Line: 1, Title: st.rec.Title,
				Problem: "not rendered: " + in.overflow(f, "its entry")})
			continue
		}
		in.note(Change{Action: "rendered", Target: in.shown(st.abs), File: "memory/" + file, Title: st.rec.Title,
			Detail: "the record had no entry"})
		if !in.dry {
			in.edits.splice(f).add(st.spec, []*records.Record{st.rec})
			in.edits.shownIn = append(in.edits.shownIn, shownIn{st, file})
		}
	}
	return nil
}

// failed turns a records error about one entry into a problem; other
// errors stop the ingest.
func (in *ingester) failed(f *viewFile, e entry, err error) error {
	var rerr *records.Error
	if errors.As(err, &rerr) {
		in.report.Problems = append(in.report.Problems, entryProblem(f, e, rerr.Error()))
		return nil
	}
	return err
}

// newID is a free id for a new record of entry e: its title's slug, with
// -2, -3, ... when a record file of that name exists (in any state).
func (in *ingester) newID(e entry) string {
	base := records.Slugify(e.Title)
	if base == "" {
		base = e.spec.category
	}
	for n := 1; ; n++ {
		id := base
		if n > 1 {
			suffix := "-" + strconv.Itoa(n)
			id = strings.TrimRight(base[:min(len(base), records.IDMax-len(suffix))], "-") + suffix
		}
		key := e.spec.category + "/" + id
		if in.recs[key] == nil && !in.ids.taken[key] {
			if _, err := os.Lstat(filepath.Join(in.root(), records.Folder(e.spec.category), id+".json")); errors.Is(err, fs.ErrNotExist) {
				return id
			}
		}
	}
}

// sortedRecords lists the records by category and id, so that an ingest
// does the same thing whatever order maps iterate in.
func (in *ingester) sortedRecords() []*stored {
	keys := make([]string, 0, len(in.recs))
	for k := range in.recs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*stored, len(keys))
	for i, k := range keys {
		out[i] = in.recs[k]
	}
	return out
}
