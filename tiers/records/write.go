package records

import (
	"errors"
	"fmt"

	"github.com/zylos/zylos-memory/internal/atomicfile"
)

// A View is a second form of the records kept in step with them under
// the root's lock (the markdown reference tier of a zylos home). Write
// calls Sync once it holds the lock, before it reads the target, so the
// view's own edits are taken in first; and Render before each record
// file is stored, so a crash between the two leaves a view that is
// ahead, which the next Sync reads back.
type View interface {
	// Sync is told the lock the write holds, which it keeps for any
	// records write of its own (see StartBatch).
	Sync(held *Lock) error
	// Render shows rec (its id after the write; renamedFrom is the old
	// id after a rename, else "") in the view. It answers the view file
	// that holds it, as a path relative to the root's Base, or "" when
	// the record has no view; the file is then listed in related_files.
	Render(rec *Record, renamedFrom string) (string, error)
}

// Settler is a View told when a write is stored and indexed, still under
// the write's lock.
type Settler interface {
	Settled()
}

// Write performs one records write, taking the root's lock. User
// mistakes come back as *Error (printed as a block on stdout, exit 1);
// other errors are I/O failures.
func Write(r WriteRequest) (Answer, error) { return write(r, nil) }

// write performs r under the lock of b, or under the root's lock taken
// for it when b is nil.
func write(r WriteRequest, b *Batch) (Answer, error) {
	spelledDelete := r.Action == ActionDelete
	if spelledDelete {
		r.Action = ActionRetire
	}
	var input doc
	if r.Action.TakesInput() {
		if r.Input == nil {
			return nil, fmt.Errorf("records write: %s without a document", r.Action)
		}
		input = r.Input.doc
	}
	root := r.Target.root
	held := b.lock()
	if held == nil {
		lock, err := AcquireWriteLock(root, noteTo(r.Warn))
		if err != nil {
			return nil, err
		}
		defer lock.Release()
		held = lock
	}
	if err := CheckIndexFiles(root); err != nil {
		return nil, err
	}
	// Only the root, which holds few files: a record temp file a killed
	// write left in its folder is removed by the repair of its mark.
	atomicfile.Sweep(root)
	var ans Answer
	var err error
	for round := 1; ; round++ {
		w := &writer{WriteRequest: r, spelledDelete: spelledDelete, batch: b}
		ans, err = w.round(held, input)
		if !errors.Is(err, ErrViewChanged) || round == ViewRounds {
			break
		}
	}
	if err == nil {
		if r.Input != nil {
			removePending(r.Input.file)
		}
		if s, ok := r.View.(Settler); ok {
			s.Settled()
		}
	}
	return ans, err
}

// ErrViewChanged is what a View's error matches when the view was
// changed by someone else while it was being written, before the View
// wrote anything: the write is then done again from Sync, which takes
// the change in, up to ViewRounds times in all.
var ErrViewChanged = errors.New("the view changed while it was being written")

// ViewRounds bounds the rounds of a write (or an ingest) that meets
// ErrViewChanged.
const ViewRounds = 4

// round runs the write once under the lock: Sync, then the action, on a
// copy of input when there is a view (an action fills in the doc it is
// given, and a view can make the write run again).
func (w *writer) round(held *Lock, input doc) (Answer, error) {
	if w.View != nil {
		if err := w.View.Sync(held); err != nil {
			return nil, err
		}
	}
	if w.View != nil && input != nil {
		data, err := input.bytes()
		if err != nil {
			return nil, err
		}
		if input, err = decodeDoc(data); err != nil {
			return nil, err
		}
	}
	switch w.Action {
	case ActionCreate:
		return w.create(input)
	case ActionUpdate:
		return w.update(input)
	}
	return w.lifecycle()
}
