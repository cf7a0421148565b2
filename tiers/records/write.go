package records

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
)

// WriteOptions are the flags of `records write`.
type WriteOptions struct {
	Action   string // create, update, retire (or delete), archive, unarchive, restore
	Root     string // absolute records root (see ResolveRoot)
	Target   string
	Category string
	Input    string
	Hash     string
	Reason   string
	Cwd      string // the caller's working directory, for a relative Target
	Now      time.Time
	Warn     func(string) // stderr notes and warnings
	// Fixed is told each mistake of the input corrected rather than
	// refused; nil tells it through Warn, as the plugin prints it.
	Fixed func(Fix)

	// Doc is the input of create and update given directly, instead of
	// the Input file (for callers inside the binary: a restore, a save).
	Doc map[string]any
	// KeepID keeps the record's id (and file) through a retitle.
	KeepID bool
	// View, when set, is kept in step with the write under the lock.
	View View

	batch *Batch // set by Batch.Write: under its lock, synced by its Finish
}

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

// Actions lists the accepted --action values.
var Actions = []string{"create", "update", "retire", "delete", "archive", "unarchive", "restore"}

// target is a resolved --target: its absolute path, category and the
// path as shown in answers and the index.
type target struct {
	abs, category, shown string
}

// Write performs one records write. User mistakes come back as *Error
// (printed as a block on stdout, exit 1); other errors are I/O failures.
func Write(o WriteOptions) (Answer, error) {
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.Fixed == nil {
		warn := o.Warn
		o.Fixed = func(f Fix) { warn(f.String()) }
	}
	spelledDelete := o.Action == "delete"
	if spelledDelete {
		o.Action = "retire"
	}
	t, err := resolveTarget(o)
	if err != nil {
		return nil, err
	}
	var input doc
	switch {
	case o.Action != "create" && o.Action != "update":
	case o.Doc != nil:
		input = doc(o.Doc)
	default:
		if input, err = readInput(o.Input, o.Root); err != nil {
			return nil, err
		}
	}
	var held *Lock
	if o.batch != nil {
		held = o.batch.held
	} else {
		lock, err := AcquireWriteLock(o.Root, o.Warn)
		if err != nil {
			return nil, err
		}
		defer lock.Release()
		held = lock
	}
	if err := CheckIndexFiles(o.Root); err != nil {
		return nil, err
	}
	// Only the root, which holds few files: a record temp file a killed
	// write left in its folder is removed by the repair of its mark.
	atomicfile.Sweep(o.Root)
	var ans Answer
	for round := 1; ; round++ {
		ans, err = writeRound(o, held, t, input, spelledDelete)
		if !errors.Is(err, ErrViewChanged) || round == ViewRounds {
			break
		}
	}
	if err == nil {
		removePending(o.Input)
		if s, ok := o.View.(Settler); ok {
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

// writeRound runs the write once under the lock: Sync, then the action,
// on a copy of input when there is a view (an action fills in the doc it
// is given, and a view can make the write run again).
func writeRound(o WriteOptions, held *Lock, t target, input doc, spelledDelete bool) (Answer, error) {
	if o.View != nil {
		if err := o.View.Sync(held); err != nil {
			return nil, err
		}
	}
	if o.View != nil && input != nil {
		data, err := input.bytes()
		if err != nil {
			return nil, err
		}
		if input, err = decodeDoc(data); err != nil {
			return nil, err
		}
	}
	w := &writer{WriteOptions: o, t: t, spelledDelete: spelledDelete}
	switch o.Action {
	case "create":
		return w.create(input)
	case "update":
		return w.update(input)
	}
	return w.lifecycle()
}

func resolveTarget(o WriteOptions) (target, error) {
	pathErr := func(why string) error {
		return newError(ErrPath, "target", o.Target, "error", why,
			"fix", "Use a path <root>/<category folder>/<slug>.json inside the records root "+o.Root)
	}
	if o.Target == "" {
		return target{}, pathErr("--target is required")
	}
	abs, err := Locate(o.Root, o.Cwd, o.Target)
	if err != nil {
		return target{}, pathErr(err.Error())
	}
	if filepath.Ext(abs) != ".json" {
		return target{}, pathErr("not a .json file")
	}
	dir := filepath.Dir(abs)
	cat := CategoryOfFolder(filepath.Base(dir))
	if cat == "" || filepath.Dir(dir) != o.Root {
		return target{}, pathErr("not directly inside a category folder")
	}
	if o.Category != "" && o.Category != cat {
		return target{}, pathErr(fmt.Sprintf("folder %s holds %s records, not %s", filepath.Base(dir), cat, o.Category))
	}
	if o.Action == "create" && o.Category == "" {
		return target{}, newError(ErrInput, "field", "--category", "error", "--category is required for create",
			"fix", "Add --category "+cat)
	}
	return target{abs: abs, category: cat, shown: IndexPath(o.Root, abs)}, nil
}
