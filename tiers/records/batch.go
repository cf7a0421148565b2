package records

import (
	"fmt"
	"os"

	"github.com/zylos/zylos-memory/internal/atomicfile"
)

// A Batch is many writes by one holder of the root's lock (an ingest that
// creates a record per hand-written entry). Each write replaces its record
// file atomically but unsynced; Finish syncs them and brings the index in
// line once. A write alone syncs three files and their directories (the
// pending mark, the record, the index); in a batch a record costs one
// sync, and the rest is paid once.
//
// Crash safety is the pending mark's: StartBatch marks the whole index for
// repair, so a batch killed before Finish leaves a mark that makes the
// next writer rebuild the index from the record files.
type Batch struct {
	held  *Lock
	root  string
	lines map[string]*Entry // index path -> its line after the batch; nil: none
	order []string
	warn  func(string)
	files []string // written, to sync at Finish
}

// rebuildMark, alone on a line of the pending mark, asks for a rebuild of
// the whole index.
const rebuildMark = "*"

// StartBatch begins a batch of writes under held, the lock of the root
// they write in, which the caller holds until the batch's Finish.
func StartBatch(held *Lock, warn func(string)) (*Batch, error) {
	if err := markPending(held.root, []string{rebuildMark}); err != nil {
		return nil, err
	}
	return &Batch{held: held, root: held.root, lines: map[string]*Entry{}, warn: warn}, nil
}

// Write is one write of the batch: under the batch's lock, its sync and
// its index update deferred to Finish.
func (b *Batch) Write(o WriteOptions) (Answer, error) {
	o.Root, o.batch = b.root, b
	return Write(o)
}

func (b *Batch) store(w *writer, d doc, data []byte, renamedFrom string) error {
	if err := atomicfile.WriteFileUnsynced(w.t.abs, data, 0o644); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	b.files = append(b.files, w.t.abs)
	drop, add := w.indexChange(d, renamedFrom)
	for _, p := range drop {
		b.set(p, nil)
	}
	for i := range add {
		b.set(add[i].Path, &add[i])
	}
	if renamedFrom != "" {
		if err := os.Remove(renamedFrom); err != nil {
			return fmt.Errorf("remove renamed record: %w", err)
		}
	}
	return nil
}

func (b *Batch) set(path string, e *Entry) {
	if _, ok := b.lines[path]; !ok {
		b.order = append(b.order, path)
	}
	b.lines[path] = e
}

// Finish syncs what the batch wrote, updates the index once and clears
// the mark.
func (b *Batch) Finish() error {
	if len(b.files) > 0 {
		if err := atomicfile.SyncFiles(b.files); err != nil {
			return err
		}
		var add []Entry
		for _, p := range b.order {
			if e := b.lines[p]; e != nil {
				add = append(add, *e)
			}
		}
		if err := updateIndex(b.root, b.order, add, b.warn); err != nil {
			return err
		}
	}
	return clearPending(b.root)
}
