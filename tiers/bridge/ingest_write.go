package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// viewEdits are the edits an ingest plans to the view files.
type viewEdits struct {
	splices map[*viewFile]*splice
	grown   map[*viewFile]int // bytes the splices add, as reserved by fits
	shownIn []shownIn         // the records rendered into a file without an entry
}

// fits reserves n more bytes of f for the ingest's splice of it, or
// answers false when f would grow past what is read into entries
// (entries.MaxFileSize): from then on none of its entries would be
// kept in step.
func (e *viewEdits) fits(f *viewFile, n int) bool {
	if len(f.src)+e.grown[f]+n > entries.MaxFileSize {
		return false
	}
	e.grown[f] += n
	return true
}

// idGrowth is what writing id into entry e of f adds to f.
func idGrowth(f *viewFile, e entry, id string) int {
	if e.id == "" {
		return len(entries.IDComment(id)) + len(lineEnding(f.src[e.start:e.end]))
	}
	return len(entries.IDComment(id)) - len(entries.IDComment(e.id))
}

// teamGrowth is what making the team comment of entry e of f read line
// ("" for none) adds to f.
func teamGrowth(f *viewFile, e entry, line string) int {
	switch {
	case e.hasTeamLine() && line == "":
		return e.teamLine[0] - e.teamLine[1]
	case e.hasTeamLine():
		return len(line) - (contentEnd(f.src, e.teamLine[0], e.teamLine[1]) - e.teamLine[0])
	case line == "":
		return 0
	}
	return len(line) + len(lineEnding(f.src[e.start:e.end]))
}

// renderGrowth is what rendering a record of id whose team comment is
// team into entry e of f adds to f.
func renderGrowth(f *viewFile, e entry, id, team string) int {
	return idGrowth(f, e, id) + teamGrowth(f, e, team)
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
	for _, s := range in.edits.shownIn {
		d, err := decodeObject(s.st.data)
		if err != nil {
			return fmt.Errorf("read record %s: %w", s.st.abs, err)
		}
		related, _ := d["related_files"].([]any)
		d["related_files"] = append(related, "memory/"+s.rel)
		records.AddChange(d, in.stamp(), "shown in memory/"+s.rel)
		if err := in.records.update(s.st.abs, d, records.Hash(s.st.data)); err != nil {
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
		sp := in.edits.splices[f]
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
		in.report.Written = append(in.report.Written, f.rel)
	}
	return nil
}

func (e *viewEdits) splice(f *viewFile) *splice {
	sp := e.splices[f]
	if sp == nil {
		sp = f.splice()
		e.splices[f] = sp
	}
	return sp
}

// recordWrites are an ingest's records writes: one batch under the lock
// the ingest holds, made durable by flush.
type recordWrites struct {
	held    *records.Lock // nil for a dry run, which writes nothing
	now     time.Time
	warn    func(string)
	batch   *records.Batch
	touched map[string]bool // the record files written (or tried), whose pairs are not kept
	created int             // the records created (or a dry run would create) for new entries
	written []string        // the files the finished batches wrote or removed, absolute
}

func (w *recordWrites) create(abs, category string, d map[string]any) error {
	b, err := w.start(abs)
	if err != nil {
		return err
	}
	return b.Create(abs, category, d)
}

func (w *recordWrites) update(abs string, d map[string]any, hash string) error {
	b, err := w.start(abs)
	if err != nil {
		return err
	}
	return b.Update(abs, d, hash)
}

func (w *recordWrites) move(abs string, action records.Action, reason string) error {
	b, err := w.start(abs)
	if err != nil {
		return err
	}
	return b.Move(abs, action, reason)
}

// start notes a write of abs and answers the batch it is made in.
func (w *recordWrites) start(abs string) (*records.Batch, error) {
	w.touched[abs] = true
	if w.batch == nil {
		if w.held == nil {
			return nil, errors.New("records write outside the records lock")
		}
		b, err := records.StartBatch(w.held, w.now, w.tell)
		if err != nil {
			return nil, err
		}
		w.batch = b
	}
	return w.batch, nil
}

// tell passes on what a write tells but its auto-fixes: an entry is not
// the plugin's input, and what the records layer corrects in the document
// made from it is not the agent's mistake to be told.
func (w *recordWrites) tell(warning records.Warning) {
	if warning.Kind != records.AutoFix {
		w.warn(warning.String())
	}
}

// flush makes the records written so far durable and indexed: before the
// markdown names a record by its id, the record is on disk.
func (w *recordWrites) flush() error {
	if w.batch == nil {
		return nil
	}
	b := w.batch
	w.batch = nil
	err := b.Finish()
	w.written = append(w.written, b.Written()...)
	return err
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
