package bridge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

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
