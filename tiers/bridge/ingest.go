package bridge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/tiers/records"
)

// Report is what an ingest did, or with DryRun would do.
type Report struct {
	DryRun   bool      `json:"dry_run"`
	Changes  []Change  `json:"changes"`
	Problems []Problem `json:"problems"`
	// Deferred counts the new entries left for the next ingest (see
	// Memory.MaxCreates).
	Deferred int `json:"deferred,omitempty"`
	// Written are the memory files the ingest wrote or removed, relative
	// to memory/ with forward slashes (records/decisions/x.json,
	// records/index.md, reference/decisions.md): a tool call's change
	// takes exactly these as the hook's own writes for it.
	Written []string `json:"-"`
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
func Ingest(h Memory, dryRun bool) (Report, error) {
	held, release, err := h.lock(dryRun)
	if err != nil {
		return Report{}, err
	}
	defer release()
	if !dryRun {
		if err := records.CheckIndexFiles(h.root()); err != nil {
			return Report{}, err
		}
	}
	var written []string // by every round, a round cut short's too
	for round := 1; ; round++ {
		rep, err := h.ingest(held, dryRun)
		written = append(written, rep.Written...)
		if !errors.Is(err, records.ErrViewChanged) || round == records.ViewRounds {
			rep.Written = written
			return rep, err
		}
	}
}

// lock takes the records root's lock for an ingest; a dry run of a home
// with no records root yet has nothing to lock (and creates nothing): it
// answers a nil lock and a release that does nothing.
func (h Memory) lock(dry bool) (held *records.Lock, release func(), err error) {
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
	Memory
	dry bool
	seen
	ids     claims
	edits   viewEdits
	records recordWrites
	report  Report
}

// seen is what an ingest read.
type seen struct {
	recs  map[string]*stored
	files []*viewFile
	// unread are the problems of the view files the ingest could not read:
	// the entries in them are not known to be gone.
	unread []Problem
	// pairs are the pairs of entries and records found in step without
	// reading the record (see PairsFile).
	pairs map[string]pair
}

// unreadable reports whether the view file (memory/...) was not read.
func (s *seen) unreadable(file string) bool {
	for _, p := range s.unread {
		if "memory/"+strings.TrimPrefix(p.File, "memory/") == file {
			return true
		}
	}
	return false
}

// claims are which entry holds which record, by category/id.
type claims struct {
	holders map[string]*entry // the entry holding each id (see claim)
	claimed map[string]bool   // record keys an entry names
	keep    map[string]bool   // records to render rather than retire
	taken   map[string]bool   // ids given out in this run
}

// ingestMode is what an ingest run is for.
type ingestMode int

const (
	// ingestApply takes the hand edits in.
	ingestApply ingestMode = iota
	// ingestDry tells what ingestApply would do, changing nothing.
	ingestDry
	// ingestForView is ingestApply for a records write's view: it also
	// answers what it saw when it found everything in step (see inStep).
	ingestForView
)

// ingested is what an ingest run answers: its report and, for
// ingestForView, what it saw when it found everything in step and wrote
// nothing (nil otherwise).
type ingested struct {
	report Report
	step   *inStep
}

func (h Memory) ingest(held *records.Lock, dry bool) (Report, error) {
	mode := ingestApply
	if dry {
		mode = ingestDry
	}
	res, err := h.ingestFiles(held, mode)
	return res.report, err
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

// ingestFiles runs one ingest under held (nil for a dry run of a home
// with no records root).
func (h Memory) ingestFiles(held *records.Lock, mode ingestMode) (ingested, error) {
	in := h.newIngester(held, mode == ingestDry)
	var names map[string]bool
	var err error
	if mode == ingestForView {
		if names, err = h.recordNames(); err != nil {
			return in.result(mode, nil), err
		}
	}
	keys, err := h.stateKeys()
	if err != nil {
		return in.result(mode, nil), err
	}
	if problems, index, ok := h.unchanged(keys); ok && !in.dry {
		in.report.Problems = problems
		return in.result(mode, &inStep{keys: keys, problems: problems, names: names, index: index}), nil
	}
	if err := in.apply(); err != nil {
		return in.result(mode, nil), err
	}
	if in.dry || len(in.records.touched) > 0 || len(in.edits.splices) > 0 || in.report.Deferred > 0 {
		return in.result(mode, nil), nil
	}
	// Only an ingest that changed nothing stamps, with the keys taken
	// before it read anything: whatever changed since has other keys.
	// One that wrote leaves the stamp to the next, which finds all in
	// step.
	index := indexFiles(in.files)
	h.saveStamp(keys, in.report.Problems, index)
	return in.result(mode, &inStep{keys: keys, problems: in.report.Problems, names: names, files: in.files, unread: in.unread, index: index}), nil
}

// result is the run's answer, with step when the mode asks for it.
func (in *ingester) result(mode ingestMode, step *inStep) ingested {
	if mode != ingestForView {
		step = nil
	}
	rep := in.report
	for _, abs := range in.records.written {
		if rel, err := filepath.Rel(in.Layout.MemoryDir(), abs); err == nil {
			rep.Written = append(rep.Written, filepath.ToSlash(rel))
		}
	}
	return ingested{report: rep, step: step}
}

// apply reads the entries and the records, brings each in line with the
// other and writes what changed: the records first, then the view files,
// then the records that now name a file they were rendered into.
func (in *ingester) apply() error {
	if err := in.load(); err != nil {
		return err
	}
	err := in.run()
	if ferr := in.records.flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if err := in.writeFiles(); err != nil {
		return err
	}
	err = in.nameFiles()
	if ferr := in.records.flush(); err == nil {
		err = ferr
	}
	if err == nil && !in.dry {
		in.savePairs()
	}
	return err
}

func (h Memory) newIngester(held *records.Lock, dry bool) *ingester {
	return &ingester{Memory: h, dry: dry, report: Report{DryRun: dry}, seen: seen{pairs: map[string]pair{}},
		ids:     claims{claimed: map[string]bool{}, keep: map[string]bool{}, taken: map[string]bool{}},
		edits:   viewEdits{splices: map[*viewFile]*splice{}, grown: map[*viewFile]int{}},
		records: recordWrites{held: held, now: h.Now, warn: h.warn, touched: map[string]bool{}}}
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
	if held, err = in.claim(held); err != nil {
		return err
	}
	return in.settle(held, pairs)
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

func (in *ingester) note(c Change) { in.report.Changes = append(in.report.Changes, c) }

func (in *ingester) shown(abs string) string { return records.IndexPath(in.root(), abs) }

func (in *ingester) stamp() string { return in.Now.UTC().Format(time.RFC3339) }
