package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// Report is what an ingest did, or with DryRun would do.
type Report struct {
	DryRun   bool      `json:"dry_run"`
	Changes  []Change  `json:"changes"`
	Problems []Problem `json:"problems"`
	// Deferred counts the new entries left for the next ingest (see
	// Home.MaxCreates).
	Deferred int `json:"deferred,omitempty"`
}

// Change is one thing an ingest did to a record or a view file.
type Change struct {
	// Action is created, updated, retired, restored, unarchived, archived,
	// joined (an entry and a record of the same title became one),
	// conflict (they differ: both kept) or rendered (a record without an
	// entry was written into its file).
	Action string `json:"action"`
	Target string `json:"target"` // the record, memory/records/<folder>/<id>.json
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Title  string `json:"title"`
	Detail string `json:"detail,omitempty"`
	// IDWas is the id the entry's comment named when the ingest gave it
	// another: an id another entry holds (see claim).
	IDWas string `json:"id_was,omitempty"`
}

func (c Change) String() string {
	where := c.File
	if c.Line > 0 {
		where = fmt.Sprintf("%s:%d", c.File, c.Line)
	}
	s := fmt.Sprintf("%s %s %q (%s)", c.Action, c.Target, c.Title, where)
	if c.Detail != "" {
		s += ": " + c.Detail
	}
	return s
}

// Ingest takes the hand edits of the reference tier into the records,
// under the records root's lock: an entry without a record creates one
// (joining a record of the same title that has no entry, when they say
// the same), a changed entry updates its record, an entry that vanished
// retires its record (recoverable with --action restore), an entry put
// back restores or unarchives it; an entry moved into an archive file
// archives it. Records that never had an entry are rendered into their
// file. An entry naming an id another entry holds is a new entry (see
// claim). Malformed entries, and ids that would take a file past the
// size it is read up to, are reported and left alone. A file edited (other
// than by appending) while the ingest writes it is left as edited and the
// ingest runs again, up to records.ViewRounds times in all.
func Ingest(h Home, dryRun bool) (Report, error) {
	held, release, err := h.lock(dryRun)
	if err != nil {
		return Report{}, err
	}
	defer release()
	h.held = held
	if !dryRun {
		if err := records.CheckIndexFiles(h.root()); err != nil {
			return Report{}, err
		}
	}
	for round := 1; ; round++ {
		rep, err := h.ingest(dryRun)
		if !errors.Is(err, records.ErrViewChanged) || round == records.ViewRounds {
			return rep, err
		}
	}
}

// lock takes the records root's lock for an ingest; a dry run of a home
// with no records root yet has nothing to lock (and creates nothing): it
// answers a nil lock and a release that does nothing.
func (h Home) lock(dry bool) (held *records.Lock, release func(), err error) {
	if dry {
		if _, err := os.Stat(h.root()); errors.Is(err, fs.ErrNotExist) {
			return nil, func() {}, nil
		}
	}
	lock, err := records.AcquireWriteLock(h.root(), h.warn)
	if err != nil {
		return nil, nil, err
	}
	return lock, func() { lock.Release() }, nil
}

// ingester carries one ingest's state.
type ingester struct {
	Home
	dry     bool
	recs    map[string]*stored
	files   []*viewFile
	claimed map[string]bool // record keys an entry names
	keep    map[string]bool // records to render rather than retire
	// unreadable lists the view files ingest could not read: the entries
	// in them are not known to be gone. unread says why, one problem each.
	unreadable map[string]bool
	unread     []Problem
	taken      map[string]bool // ids given out in this run, by category/id
	// holders is the entry holding each id (see claim), by category/id.
	holders map[string]*entry
	// pairs are the pairs of entries and records found in step without
	// reading the record (see PairsFile); touched are the record files
	// written (or tried), whose pairs are not kept.
	pairs   map[string]pair
	touched map[string]bool
	splices map[*viewFile]*splice
	grown   map[*viewFile]int // bytes the splices add, as reserved by fits
	shownIn []shownIn
	batch   *records.Batch // the records writes so far, synced by flush
	created int            // records created for new entries
	wrote   bool           // a records write was made
	report  Report
}

func (h Home) ingest(dry bool) (Report, error) {
	rep, _, err := h.ingestFiles(dry, false)
	return rep, err
}

// inStep is what an ingest that found the reference tier and the records
// in step saw: the state keys it took before reading, the record files
// listed before that, and the view files as read (nil when it did not
// read them). A records write under the same lock renders from files and
// stamps its own result (see view.Settled).
type inStep struct {
	keys     []string
	problems []Problem
	names    map[string]bool // absolute paths of the bridged record files
	files    []*viewFile
	unread   []Problem // the view files not read, with files
	// index is the entry index of the view files as the keys describe
	// them ("" when not known), kept up to date by each render in place.
	index string
}

// ingestFiles ingests and, when step is asked for, answers what it saw
// when it found everything in step and wrote nothing (nil otherwise).
func (h Home) ingestFiles(dry, step bool) (Report, *inStep, error) {
	in := h.newIngester(dry)
	var names map[string]bool
	var err error
	if step {
		if names, err = h.recordNames(); err != nil {
			return in.report, nil, err
		}
	}
	keys, err := h.stateKeys()
	if err != nil {
		return in.report, nil, err
	}
	if problems, index, ok := h.unchanged(keys); ok && !dry {
		in.report.Problems = problems
		if !step {
			return in.report, nil, nil
		}
		return in.report, &inStep{keys: keys, problems: problems, names: names, index: index}, nil
	}
	if err := in.load(); err != nil {
		return in.report, nil, err
	}
	err = in.run()
	if ferr := in.flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return in.report, nil, err
	}
	if err := in.writeFiles(); err != nil {
		return in.report, nil, err
	}
	err = in.nameFiles()
	if ferr := in.flush(); err == nil {
		err = ferr
	}
	if err == nil && !dry {
		in.savePairs()
	}
	if err == nil && !dry && !in.wrote && len(in.splices) == 0 && in.report.Deferred == 0 {
		// Only an ingest that changed nothing stamps, with the keys taken
		// before it read anything: whatever changed since has other keys.
		// One that wrote leaves the stamp to the next, which finds all in
		// step.
		index := indexFiles(in.files)
		h.saveStamp(keys, in.report.Problems, index)
		if !step {
			return in.report, nil, nil
		}
		return in.report, &inStep{keys: keys, problems: in.report.Problems, names: names, files: in.files, unread: in.unread, index: index}, nil
	}
	return in.report, nil, err
}

func (h Home) newIngester(dry bool) *ingester {
	return &ingester{Home: h, dry: dry, claimed: map[string]bool{}, keep: map[string]bool{}, unreadable: map[string]bool{},
		taken: map[string]bool{}, splices: map[*viewFile]*splice{}, grown: map[*viewFile]int{}, report: Report{DryRun: dry},
		pairs: map[string]pair{}, touched: map[string]bool{}}
}

// load reads the records and the view files side by side: neither
// depends on the other, and each is a good part of an ingest's time.
// Records that PairsFile says are in step with their entries are read
// only when their entries turn out changed.
func (in *ingester) load() error {
	var recProblems, problems []Problem
	var held []*stored
	var recErr, err error
	pairs := in.readPairs()
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		in.recs, held, recProblems, recErr = in.loadRecords(pairs)
	}()
	in.files, problems, err = in.loadFiles()
	<-loaded
	if recErr != nil {
		return recErr
	}
	if err != nil {
		return err
	}
	in.report.Problems = append(in.report.Problems, recProblems...)
	in.report.Problems = append(in.report.Problems, problems...)
	in.unread = problems
	for _, p := range problems {
		in.unreadable["memory/"+strings.TrimPrefix(p.File, "memory/")] = true
	}
	if held, err = in.claim(held); err != nil {
		return err
	}
	return in.settle(held, pairs)
}

// flush makes the records written so far durable and indexed: before the
// markdown names a record by its id, the record is on disk.
func (in *ingester) flush() error {
	if in.batch == nil {
		return nil
	}
	b := in.batch
	in.batch = nil
	return b.Finish()
}

func (in *ingester) run() error {
	for _, f := range in.files {
		for _, e := range f.entries {
			if e.paired {
				continue // in step with its record, which was not read
			}
			if err := in.entry(f, e); err != nil {
				return err
			}
		}
	}
	return in.unclaimed()
}

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
	in.holders = map[string]*entry{}
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
		in.holders[key] = holder
		in.claimed[key] = true
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
		if err := in.lifecycle(f, e, st, "restore", "restored", "entry is back in memory/"+f.rel); err != nil {
			return err
		}
	case records.StatusArchived:
		if err := in.lifecycle(f, e, st, "unarchive", "unarchived", "entry is back in memory/"+f.rel); err != nil {
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
		if st.spec != e.spec || in.claimed[st.key()] || st.rec.Status() != records.StatusActive ||
			strings.ToLower(st.rec.Title) != title {
			continue
		}
		in.claimed[st.key()] = true
		if e.spec.same(e.Entry, st.rec) {
			if !in.fits(f, idGrowth(f, e, st.id)) {
				in.report.Problems = append(in.report.Problems, entryProblem(f, e, in.overflow(f, "its id comment")))
				return nil
			}
			in.note(Change{Action: "joined", Target: in.shown(st.abs), File: "memory/" + f.rel, Line: e.Line, Title: e.Title,
				Detail: takenDetail(e, "the record and the entry say the same; the entry now carries its id"), IDWas: takenID(e)})
			in.splice(f).render(e, st.rec)
			return in.update(f, e, st, true)
		}
		in.claimed[st.key()] = false // not this entry's: it keeps an entry of its own
		in.keep[st.key()] = true
		return in.create(f, e, in.newID(e), "conflict",
			fmt.Sprintf("differs from %s: both kept, the entry as a record of its own", in.shown(st.abs)))
	}
	return in.create(f, e, in.newID(e), "created", "")
}

// create makes a record of entry e with id and writes the id into the
// entry.
func (in *ingester) create(f *viewFile, e entry, id, action, detail string) error {
	if in.MaxCreates > 0 && in.created >= in.MaxCreates {
		in.report.Deferred++
		return nil
	}
	if e.id != id && !in.fits(f, idGrowth(f, e, id)) {
		in.report.Problems = append(in.report.Problems, entryProblem(f, e, in.overflow(f, "its id comment")))
		return nil
	}
	in.created++
	abs := filepath.Join(in.root(), records.Folder(e.spec.category), id+".json")
	in.taken[e.spec.category+"/"+id] = true
	in.claimed[e.spec.category+"/"+id] = true
	d := e.spec.newDoc(e.Entry, id, f.rel, in.stamp())
	c := Change{Action: action, Target: in.shown(abs), File: "memory/" + f.rel, Line: e.Line, Title: e.Title,
		Detail: takenDetail(e, detail), IDWas: takenID(e)}
	if in.dry {
		in.note(c)
		return nil
	}
	_, err := in.write(records.WriteOptions{Action: "create", Target: abs, Category: e.spec.category, Doc: d})
	if err != nil {
		return in.failed(f, e, err)
	}
	rec, err := records.ReadRecord(abs)
	if err != nil {
		return err
	}
	in.note(c)
	if e.id != id {
		in.splice(f).render(e, rec)
	}
	return nil
}

// update brings st in line with entry e when they differ or the record
// does not name e's file yet.
// joined says the entry was just joined to st (and reported so).
func (in *ingester) update(f *viewFile, e entry, st *stored, joined bool) error {
	same, named := e.spec.same(e.Entry, st.rec), e.spec.namesFile(st.rec, f.rel)
	if same && named && e.spec.homeFile(st.rec) == f.rel {
		return nil
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
	if _, err := in.write(records.WriteOptions{Action: "update", Target: st.abs, Doc: d, Hash: records.Hash(st.data), KeepID: true}); err != nil {
		return in.failed(f, e, err)
	}
	if same && (named || joined) {
		return nil // the entry is where the record says, or said so already
	}
	in.note(c)
	return nil
}

// lifecycle runs action (restore, unarchive, archive) on st because of
// entry e.
func (in *ingester) lifecycle(f *viewFile, e entry, st *stored, action, done, why string) error {
	c := Change{Action: done, Target: in.shown(st.abs), File: "memory/" + f.rel, Line: e.Line, Title: e.Title, Detail: why}
	if in.dry {
		in.note(c)
		return nil
	}
	if _, err := in.write(records.WriteOptions{Action: action, Target: st.abs, Reason: why}); err != nil {
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
	return in.lifecycle(f, e, st, "archive", "archived", "entry moved to memory/"+f.rel)
}

// unclaimed handles the active records no entry names: one that was shown
// once lost its entry by hand and is retired; one that never was (or
// kept in a conflict) is rendered into its file.
func (in *ingester) unclaimed() error {
	var render []*stored
	for _, st := range in.sortedRecords() {
		if in.claimed[st.key()] || st.rec.Status() != records.StatusActive {
			continue
		}
		file := "memory/" + st.spec.homeFile(st.rec)
		if in.unreadable[file] {
			continue
		}
		if st.spec.hasView(st.rec) && !in.keep[st.key()] {
			why := "entry removed from " + file
			if in.Reason != "" {
				why += " (" + in.Reason + ")"
			}
			c := Change{Action: "retired", Target: in.shown(st.abs), File: file, Title: st.rec.Title, Detail: why}
			if !in.dry {
				if _, err := in.write(records.WriteOptions{Action: "retire", Target: st.abs, Reason: why}); err != nil {
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
		if !in.fits(f, len(st.spec.block(st.rec, lineEnding(f.src)))+4*len(lineEnding(f.src))) {
			in.report.Problems = append(in.report.Problems, Problem{File: in.shown(st.abs), Line: 1, Title: st.rec.Title,
				Problem: "not rendered: " + in.overflow(f, "its entry")})
			continue
		}
		in.note(Change{Action: "rendered", Target: in.shown(st.abs), File: "memory/" + file, Title: st.rec.Title,
			Detail: "the record had no entry"})
		if !in.dry {
			in.splice(f).add(st.spec, []*records.Record{st.rec})
			in.shownIn = append(in.shownIn, shownIn{st, file})
		}
	}
	return nil
}

// fits reserves n more bytes of f for the ingest's splice of it, or
// answers false when f would grow past what is read into entries
// (entries.MaxFileSize): from then on none of its entries would be
// kept in step.
func (in *ingester) fits(f *viewFile, n int) bool {
	if len(f.src)+in.grown[f]+n > entries.MaxFileSize {
		return false
	}
	in.grown[f] += n
	return true
}

// idGrowth is what writing id into entry e of f adds to f.
func idGrowth(f *viewFile, e entry, id string) int {
	if e.id == "" {
		return len(entries.IDComment(id)) + len(lineEnding(f.src[e.start:e.end]))
	}
	return len(entries.IDComment(id)) - len(entries.IDComment(e.id))
}

// overflow is the problem of what (an id comment, an entry) that does not
// fit in f.
func (in *ingester) overflow(f *viewFile, what string) string {
	return fmt.Sprintf("left alone: %s would take memory/%s past the %d bytes up to which a file is read into entries (%s)",
		what, f.rel, entries.MaxFileSize, splitHint(f.rel))
}

// shownIn is a record rendered into a file that its related_files must
// name once the file is written.
type shownIn struct {
	st  *stored
	rel string
}

// nameFiles lists each rendered record's file in its related_files.
func (in *ingester) nameFiles() error {
	for _, s := range in.shownIn {
		d, err := decodeObject(s.st.data)
		if err != nil {
			return fmt.Errorf("read record %s: %w", s.st.abs, err)
		}
		related, _ := d["related_files"].([]any)
		d["related_files"] = append(related, "memory/"+s.rel)
		changes, _ := d["changes"].([]any)
		d["changes"] = append(changes, map[string]any{"date": in.stamp(), "summary": "shown in memory/" + s.rel})
		if _, err := in.write(records.WriteOptions{Action: "update", Target: s.st.abs, Doc: d, Hash: records.Hash(s.st.data), KeepID: true}); err != nil {
			var rerr *records.Error
			if !errors.As(err, &rerr) {
				return err
			}
			in.report.Problems = append(in.report.Problems, Problem{File: in.shown(s.st.abs), Line: 1, Title: s.st.rec.Title, Problem: err.Error()})
		}
	}
	return nil
}

// writeFiles writes every view file the ingest changed, each proven by
// its splice first.
func (in *ingester) writeFiles() error {
	if in.dry {
		return nil
	}
	for _, f := range in.files {
		sp := in.splices[f]
		if sp == nil {
			continue
		}
		data, err := sp.result()
		if err != nil {
			return err
		}
		if err := in.writeFile(f, data, false); err != nil {
			// What this ingest wrote is read back by the next, which
			// joins the records it created to their entries.
			var changed *changedError
			if errors.As(err, &changed) {
				changed.redo = true
			}
			return err
		}
	}
	return nil
}

func (in *ingester) splice(f *viewFile) *splice {
	sp := in.splices[f]
	if sp == nil {
		sp = f.splice()
		in.splices[f] = sp
	}
	return sp
}

func (in *ingester) note(c Change) { in.report.Changes = append(in.report.Changes, c) }

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

// write runs one records write under the ingest's lock, in its batch.
func (in *ingester) write(o records.WriteOptions) (records.Answer, error) {
	in.wrote = true
	in.touched[o.Target] = true
	if in.batch == nil {
		if in.held == nil {
			return nil, errors.New("records write outside the records lock")
		}
		b, err := records.StartBatch(in.held, in.warn)
		if err != nil {
			return nil, err
		}
		in.batch = b
	}
	// An entry is not the plugin's input: what the records layer corrects
	// in the document made from it is not the agent's mistake to be told.
	o.Now, o.Warn, o.Fixed = in.Now, in.warn, func(records.Fix) {}
	return in.batch.Write(o)
}

func (in *ingester) reread(st *stored) error {
	data, err := regfile.ReadFile(st.abs)
	if err != nil {
		return fmt.Errorf("read record: %w", err)
	}
	rec, err := records.ParseRecord(data)
	if err != nil {
		return fmt.Errorf("read record %s: %w", st.abs, err)
	}
	rec.ID = st.rec.ID
	st.rec, st.data = rec, data
	return nil
}

func (in *ingester) shown(abs string) string { return records.IndexPath(in.root(), abs) }

func (in *ingester) stamp() string { return in.Now.UTC().Format(time.RFC3339) }

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
		if in.recs[key] == nil && !in.taken[key] {
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

// decodeObject decodes a record's bytes as a JSON object, numbers exact.
func decodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}
