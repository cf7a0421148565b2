package bridge

import (
	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// entry is a reference entry as the bridge sees it: the tiers entry with
// its byte span, plus the record id its comment names.
type entry struct {
	entries.Entry
	spec       *spec
	id         string
	idLine     [2]int // byte range of the id comment's line; zero without one
	teamLine   [2]int // byte range of the team comment's line; zero without one
	start, end int
	problem    string // why the bridge leaves it alone, "" when it does not
	// takenBy is the entry that holds the id this one names too (see
	// claim), nil when this one holds it or names none.
	takenBy *entry
	// paired: the entry holds its id and matches its pair (see PairsFile);
	// its record was not read.
	paired bool
	sum    string // digest(), taken when parsed summed
}

// parseEntries reads the record-backed entries of one reference file
// (name relative to the memory dir). Files of other kinds hold none.
// summed takes the digest of each entry holding an id at once, for the
// ingest's pairs (a splice's proof needs none).
func parseEntries(name string, src []byte, summed bool) []entry {
	s := specOfKind(entries.KindOf(name))
	if s == nil {
		return nil
	}
	tes := entries.Parse(name, src)
	if len(tes) == 0 {
		return nil
	}
	out := make([]entry, len(tes))
	fill := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = newEntry(s, tes[i], src)
			if summed && out[i].id != "" {
				out[i].sum = out[i].digest()
			}
		}
	}
	// Finding the ids and summing the entries for their pairs is a tenth
	// of an ingest of a large file: halved over two processors.
	if len(tes) < 256 {
		fill(0, len(tes))
		return out
	}
	half := len(tes) / 2
	done := make(chan struct{})
	go func() {
		defer close(done)
		fill(0, half)
	}()
	fill(half, len(tes))
	<-done
	return out
}

// parseEntryAt reads the one entry of name at src[start:end], parsed alone
// (see entries.ParseAt); false when it cannot be.
func parseEntryAt(name string, src []byte, start, end int, section string) (entry, bool) {
	s := specOfKind(entries.KindOf(name))
	if s == nil {
		return entry{}, false
	}
	es, ok := entries.ParseAt(name, src, start, end, section)
	if !ok || len(es) != 1 {
		return entry{}, false
	}
	return newEntry(s, es[0], src), true
}

func newEntry(s *spec, te entries.Entry, src []byte) entry {
	e := entry{Entry: te, spec: s}
	e.start, e.end = te.Span()
	e.problem = te.Problem
	e.findID(src)
	return e
}

// findID looks for the id comment on its own line inside the entry,
// outside fenced code, and for the team comment. Two id comments in one
// entry, or one that is not a valid id, make the entry a problem: which
// record it is cannot be told; so do two team comments.
func (e *entry) findID(src []byte) {
	entries.PlainLines(src, e.start, e.end, func(pos, next int, line string) bool {
		id, ok := entries.ParseIDComment(line)
		if !ok {
			e.findTeam(pos, next, line)
			return true
		}
		switch {
		case e.id != "":
			e.problem = joinProblem(e.problem, "id comment given twice")
		case !records.ValidID(id):
			e.problem = joinProblem(e.problem, "id comment names no valid id (want kebab-case)")
		default:
			e.id, e.idLine = id, [2]int{pos, next}
		}
		return true
	})
}

// findTeam notes the line [pos, next) when it is a team comment.
func (e *entry) findTeam(pos, next int, line string) {
	if !entries.IsTeamComment(line) {
		return
	}
	if e.hasTeamLine() {
		e.problem = joinProblem(e.problem, "team comment given twice")
		return
	}
	e.teamLine = [2]int{pos, next}
}

func (e *entry) hasTeamLine() bool { return e.teamLine != [2]int{} }

// isIDComment reports whether the trimmed line is an id comment.
func isIDComment(line string) bool {
	_, ok := entries.ParseIDComment(line)
	return ok
}

func joinProblem(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
