package records

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

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
//
// Its writes are the bridge's: a document made from an entry (never the
// plugin's input file), an update that keeps the record's id, a status
// move; each refusal is an *Error about that write alone.
type Batch struct {
	held  *Lock
	root  string
	now   time.Time
	warn  func(Warning)
	lines map[string]*Entry // index path -> its line after the batch; nil: none
	order []string
	files []string // written, to sync at Finish
	// removed are the files a write renamed away; indexed says Finish
	// wrote the index.
	removed []string
	indexed bool
	// FromTeam is the home of the team the batch's writes come from (see
	// WriteRequest.FromTeam); "" for the bridge's own.
	FromTeam string
}

// rebuildMark, alone on a line of the pending mark, asks for a rebuild of
// the whole index.
const rebuildMark = "*"

// StartBatch begins a batch of writes at now under held, the lock of the
// root they write in, which the caller holds until the batch's Finish.
// warn is told what the writes tell (nil drops it).
func StartBatch(held *Lock, now time.Time, warn func(Warning)) (*Batch, error) {
	if err := markPending(held.root, []string{rebuildMark}); err != nil {
		return nil, err
	}
	return &Batch{held: held, root: held.root, now: now, warn: warn, lines: map[string]*Entry{}}, nil
}

// Create creates the record file abs of category from d (filled in by
// the write).
func (b *Batch) Create(abs, category string, d map[string]any) error {
	return b.write(WriteRequest{Action: ActionCreate, Input: InputOf(d)}, abs, category)
}

// Update replaces the record at abs by d, keeping its id whatever its
// title, when the record still has the hash it was read with.
func (b *Batch) Update(abs string, d map[string]any, hash string) error {
	return b.write(WriteRequest{Action: ActionUpdate, Input: InputOf(d), Hash: hash, KeepID: true}, abs, "")
}

// Move runs a status move (retire, archive, unarchive, restore) on the
// record at abs, for reason.
func (b *Batch) Move(abs string, action Action, reason string) error {
	if action.TakesInput() {
		return fmt.Errorf("records batch: %s is not a status move", action)
	}
	return b.write(WriteRequest{Action: action, Reason: reason}, abs, "")
}

// write is r on the record file abs (of category, when not ""), one write
// of the batch: under the batch's lock, its sync and its index update
// deferred to Finish. The path is checked as a caller's would be: a
// category folder that leads out of the root through a symlink is
// refused.
func (b *Batch) write(r WriteRequest, abs, category string) error {
	t, err := ResolveTarget(b.root, "", abs, r.Action, category)
	if err != nil {
		return err
	}
	r.Target, r.Now, r.Warn, r.FromTeam = t, b.now, b.warn, b.FromTeam
	_, err = write(r, b)
	return err
}

// lock is the lock the batch writes under; nil for no batch.
func (b *Batch) lock() *Lock {
	if b == nil {
		return nil
	}
	return b.held
}

func (b *Batch) store(w *writer, d doc, data []byte, renamedFrom string) error {
	if err := atomicfile.WriteFileUnsynced(w.Target.abs, data, 0o644); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	b.files = append(b.files, w.Target.abs)
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
		b.removed = append(b.removed, renamedFrom)
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
		if err := updateIndex(b.root, b.order, add, noteTo(b.warn)); err != nil {
			return err
		}
		b.indexed = true
	}
	return clearPending(b.root)
}

// Written lists the files the batch wrote or removed, absolute: the
// records, and the index once Finish wrote it. It is what a caller that
// answers for its writes (a hook committing a tool call's change) names
// as its own.
func (b *Batch) Written() []string {
	out := append(slices.Clone(b.files), b.removed...)
	if b.indexed {
		out = append(out, filepath.Join(b.root, IndexFile))
	}
	return out
}
