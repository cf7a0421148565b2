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
