package bridge

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// Findings is `consolidate --entries` through the records: the report of
// what `consolidate --apply` would act on. --apply ingests hand edits
// before it archives, so the report previews that ingest (changing
// nothing) and judges the reference tier as the ingest would leave it:
// every entry in its file, plus each record the ingest would render into
// its file (reported at line 0). Each stale decision, old completed
// project and conflicting preference names the record behind it and
// what the ingest would do to that record first (see tiers.Backing). A
// home without a reference tier gets the markdown findings alone.
func Findings(h Memory, now time.Time) (tiers.EntryFindings, error) {
	if !h.HasView() {
		return h.Layout.EntryFindings(now)
	}
	in, err := h.preview()
	if err != nil {
		return tiers.EntryFindings{}, err
	}
	b := in.backings()
	f, err := h.Layout.EntryFindingsWith(now, b.extra)
	if err != nil {
		return f, err
	}
	for i := range f.StaleDecisions {
		b.fill(&f.StaleDecisions[i].Line, f.StaleDecisions[i].File, &f.StaleDecisions[i].Backing)
	}
	for i := range f.CompletedProjects {
		b.fill(&f.CompletedProjects[i].Line, f.CompletedProjects[i].File, &f.CompletedProjects[i].Backing)
	}
	for i := range f.Malformed {
		f.Malformed[i].Line = max(f.Malformed[i].Line, 0)
	}
	for _, c := range f.ConflictingPreferences {
		for i := range c.Values {
			b.fill(&c.Values[i].Line, c.Values[i].File, &c.Values[i].Backing)
		}
	}
	return f, nil
}

// preview runs a dry ingest under the records lock (as records ingest
// --dry-run does) and answers the ingester, its files and records read.
func (h Memory) preview() (*ingester, error) {
	held, release, err := h.lock(true)
	if err != nil {
		return nil, err
	}
	defer release()
	in := h.newIngester(held, true)
	if err := in.load(); err != nil {
		return nil, err
	}
	if err := in.run(); err != nil {
		return nil, err
	}
	return in, nil
}

// backings maps the entries of a previewed ingest to their records.
type backings struct {
	byLine map[string]tiers.Backing // "reference/decisions.md:3"
	// extra are the entries of the records the ingest would render, each
	// at line -(i+1) until fill puts it at line 0.
	extra    []entries.Entry
	extraFor []tiers.Backing
}

func (in *ingester) backings() backings {
	b := backings{byLine: map[string]tiers.Backing{}}
	for _, f := range in.files {
		if f.archive {
			continue
		}
		for _, e := range f.entries {
			if e.id != "" && e.problem == "" && e.takenBy == nil {
				abs := filepath.Join(in.root(), records.Folder(e.spec.category), e.id+".json")
				b.byLine[fmt.Sprintf("%s:%d", f.rel, e.Line)] = tiers.Backing{Record: in.shown(abs)}
			}
		}
	}
	byTarget := map[string]*stored{}
	for _, st := range in.recs {
		byTarget[in.shown(st.abs)] = st
	}
	for _, c := range in.report.Changes {
		rel := strings.TrimPrefix(c.File, "memory/")
		if c.Action != "rendered" {
			// The first change to an entry's record says most (restored
			// before updated).
			key := fmt.Sprintf("%s:%d", rel, c.Line)
			if c.Line > 0 && b.byLine[key].Ingest == "" {
				b.byLine[key] = tiers.Backing{Record: c.Target, Ingest: c.Action}
			}
			continue
		}
		st := byTarget[c.Target]
		if st == nil {
			continue
		}
		es := entries.Parse(rel, []byte(st.spec.block(st.rec, "\n")))
		if len(es) != 1 {
			continue
		}
		es[0].Line = -(len(b.extra) + 1)
		b.extra = append(b.extra, es[0])
		b.extraFor = append(b.extraFor, tiers.Backing{Record: c.Target, Ingest: c.Action})
	}
	return b
}

// fill sets the backing of the entry reported at file:line.
func (b backings) fill(line *int, file string, into *tiers.Backing) {
	if *line < 0 {
		*into = b.extraFor[-*line-1]
		*line = 0
		return
	}
	*into = b.byLine[fmt.Sprintf("%s:%d", file, *line)]
}
