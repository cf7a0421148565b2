package tiers

import (
	"fmt"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/tiers/entries"
)

// Ages beyond which consolidation archives an entry (Memory Architecture v2).
const (
	DecisionArchiveDays = 90 // superseded or archived decisions
	ProjectArchiveDays  = 30 // completed projects, by their Updated date
)

// EntryFindings is what `consolidate --entries` reports: what the Node
// script's report promised but never checked. Lists are never null.
type EntryFindings struct {
	StaleDecisions         []EntryRef           `json:"staleDecisions"`
	CompletedProjects      []EntryRef           `json:"completedProjects"`
	ConflictingPreferences []PreferenceConflict `json:"conflictingPreferences"`
	Malformed              []Malformed          `json:"malformed"`
}

// EntryRef names an entry that consolidation should move, and where to.
type EntryRef struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Title     string `json:"title"`
	Status    string `json:"status"`
	Date      string `json:"date"`
	AgeDays   int    `json:"ageDays"`
	ArchiveTo string `json:"archiveTo"`
	Backing
}

// Backing names the record behind an entry of the reference tier, when
// the home keeps its reference entries as records: the record's path
// (memory/records/<folder>/<id>.json) and, when the next ingest would
// change it first, how ("created" for an entry that has no record yet).
type Backing struct {
	Record string `json:"record,omitempty"`
	Ingest string `json:"ingest,omitempty"`
}

// PreferenceConflict is one preference name recorded with different values.
type PreferenceConflict struct {
	Name   string            `json:"name"`
	Values []PreferenceValue `json:"values"`
}

// PreferenceValue is one of the conflicting records of a preference.
type PreferenceValue struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Value string `json:"value"`
	Added string `json:"added,omitempty"`
	Backing
}

// Malformed is an entry that does not follow its format.
type Malformed struct {
	File    string       `json:"file"`
	Line    int          `json:"line"`
	Kind    entries.Kind `json:"kind"`
	Title   string       `json:"title"`
	Problem string       `json:"problem"`
}

// EntryFindings scans the tier files and reports on their entries as of now,
// dates taken in the layout's timezone.
func (l Layout) EntryFindings(now time.Time) (EntryFindings, error) {
	return l.EntryFindingsWith(now, nil)
}

// EntryFindingsWith is EntryFindings over the tier files' entries and
// extra ones that are in no file yet (the entries an ingest would render
// from records), reported after them.
func (l Layout) EntryFindingsWith(now time.Time, extra []entries.Entry) (EntryFindings, error) {
	today, err := l.today(now)
	if err != nil {
		return EntryFindings{}, err
	}
	es, err := l.ScanEntries()
	if err != nil {
		return EntryFindings{}, err
	}
	return FindEntries(append(es, extra...), today), nil
}

// today is now's calendar date in the layout's timezone, as midnight UTC so
// that it compares with entry dates.
func (l Layout) today(now time.Time) (time.Time, error) {
	loc, err := l.Location()
	if err != nil {
		return time.Time{}, err
	}
	y, m, d := now.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
}

// FindEntries reports on entries as of today (a date at midnight UTC).
func FindEntries(es []entries.Entry, today time.Time) EntryFindings {
	f := EntryFindings{
		StaleDecisions:         []EntryRef{},
		CompletedProjects:      []EntryRef{},
		ConflictingPreferences: preferenceConflicts(es),
		Malformed:              []Malformed{},
	}
	for _, e := range es {
		switch {
		case e.Problem != "":
			f.Malformed = append(f.Malformed, Malformed{e.File, e.Line, e.Kind, e.Title, e.Problem})
		case isStaleDecision(e, today):
			f.StaleDecisions = append(f.StaleDecisions, entryRef(e, today))
		case isOldCompletedProject(e, today):
			f.CompletedProjects = append(f.CompletedProjects, entryRef(e, today))
		}
	}
	return f
}

// ageDays is how many whole days before today the entry is dated.
func ageDays(e entries.Entry, today time.Time) int {
	return int(today.Sub(e.Date).Hours() / 24)
}

// isStaleDecision: superseded or archived more than 90 days ago. Malformed
// entries are never moved: they are reported instead.
func isStaleDecision(e entries.Entry, today time.Time) bool {
	s := e.Status()
	return e.Kind == entries.KindDecision && e.Problem == "" && !e.Date.IsZero() &&
		(s == "superseded" || s == "archived") && ageDays(e, today) > DecisionArchiveDays
}

// isOldCompletedProject: completed and not updated for more than 30 days.
func isOldCompletedProject(e entries.Entry, today time.Time) bool {
	return e.Kind == entries.KindProject && e.Problem == "" && !e.Date.IsZero() &&
		e.Status() == "completed" && ageDays(e, today) > ProjectArchiveDays
}

func entryRef(e entries.Entry, today time.Time) EntryRef {
	return EntryRef{
		File: e.File, Line: e.Line, Title: e.Title, Status: e.Status(),
		Date: e.Date.Format(entries.DateLayout), AgeDays: ageDays(e, today),
		ArchiveTo: ArchiveFileFor(e),
	}
}

// ArchiveFileFor is the archive file, relative to the memory dir, that
// takes a decision or project: archive/decisions-YYYY.md or
// archive/projects-YYYY.md, YYYY being the entry's own year.
func ArchiveFileFor(e entries.Entry) string {
	return fmt.Sprintf("archive/%ss-%d.md", e.Kind, e.Date.Year())
}

// preferenceConflicts groups preferences by name (case and spacing
// ignored), across files, and keeps the names recorded with more than one
// value. A preference marked superseded has been resolved already.
func preferenceConflicts(es []entries.Entry) []PreferenceConflict {
	byName := map[string][]PreferenceValue{}
	var names []string
	display := map[string]string{}
	for _, e := range es {
		value, ok := e.Fields["Value"]
		if e.Kind != entries.KindPreference || !ok || e.Status() == "superseded" {
			continue
		}
		key := normalize(e.Title)
		if _, seen := byName[key]; !seen {
			names = append(names, key)
			display[key] = e.Title
		}
		byName[key] = append(byName[key], PreferenceValue{File: e.File, Line: e.Line, Value: value, Added: e.Fields["Added"]})
	}
	out := []PreferenceConflict{}
	for _, key := range names {
		values := byName[key]
		for _, v := range values[1:] {
			if normalize(v.Value) != normalize(values[0].Value) {
				out = append(out, PreferenceConflict{Name: display[key], Values: values})
				break
			}
		}
	}
	return out
}

func normalize(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
