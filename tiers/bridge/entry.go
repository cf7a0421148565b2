package bridge

import (
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/records"
)

// entry is a reference entry as the bridge sees it: the tiers entry with
// its byte span, plus the record id its comment names.
type entry struct {
	tiers.Entry
	spec       *spec
	id         string
	idLine     [2]int // byte range of the id comment's line; zero without one
	start, end int
	problem    string // why the bridge leaves it alone, "" when it does not
	// paired: the entry holds its id and matches its pair (see PairsFile);
	// its record was not read.
	paired bool
}

// parseEntries reads the record-backed entries of one reference file
// (name relative to the memory dir). Files of other kinds hold none.
func parseEntries(name string, src []byte) []entry {
	s := specOfKind(tiers.KindOf(name))
	if s == nil {
		return nil
	}
	var out []entry
	for _, te := range tiers.ParseEntries(name, src) {
		e := entry{Entry: te, spec: s}
		e.start, e.end = te.Span()
		e.problem = te.Problem
		e.findID(src)
		out = append(out, e)
	}
	return out
}

// findID looks for the id comment on its own line inside the entry,
// outside fenced code. Two id comments in one entry, or one that is not a
// valid id, make the entry a problem: which record it is cannot be told.
func (e *entry) findID(src []byte) {
	tiers.PlainLines(src, e.start, e.end, func(pos, next int, line string) bool {
		id, ok := tiers.ParseIDComment(line)
		if !ok {
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

// isIDComment reports whether the trimmed line is an id comment.
func isIDComment(line string) bool {
	_, ok := tiers.ParseIDComment(line)
	return ok
}

func joinProblem(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
