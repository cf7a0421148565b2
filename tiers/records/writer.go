package records

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// writer carries one write operation's state under the lock.
// Its Target moves with a rename.
type writer struct {
	WriteRequest
	spelledDelete bool   // the caller said delete, not retire
	batch         *Batch // the batch it writes in, or nil
}

func (w *writer) now() string { return stamp(w.Now) }

func (w *writer) root() string { return w.Target.root }

// note tells the caller a line for stderr.
func (w *writer) note(s string) { noteTo(w.Warn)(s) }

// readStored reads the target inside the lock. A missing file is
// fs.ErrNotExist; an unparsable one is a READ_ERROR.
func (w *writer) readStored() ([]byte, doc, error) {
	data, err := regfile.ReadFile(w.Target.abs)
	if err != nil {
		return nil, nil, err
	}
	d, err := decodeDoc(data)
	if err != nil {
		return data, nil, newError(ErrRead, "target", w.Target.shown, "error", err.Error(),
			"fix", "Repair the JSON by hand or retire it")
	}
	return data, d, nil
}

func (w *writer) create(d doc) (Answer, error) {
	autoFix(d, true, w.Now, w.Warn)
	capTags(d, w.Warn)
	createTeam(d, w.FromTeam)
	d["record_status"] = StatusActive
	for _, f := range lifecycleFields {
		delete(d, f)
	}
	d["category"] = w.Target.category
	stem := strings.TrimSuffix(filepath.Base(w.Target.abs), ".json")
	if !ValidID(stem) {
		return nil, newError(ErrPath, "target", w.Target.shown, "error", "file name is not a kebab-case id",
			"fix", "Name the file "+Slugify(stem)+".json")
	}
	if d.str("id") != stem {
		d["id"] = stem
	}
	if _, ok := d["times_updated"]; !ok {
		d["times_updated"] = 0
	}
	if err := w.checkCreatable(); err != nil {
		return nil, err
	}
	if err := w.save(d, ""); err != nil {
		return nil, err
	}
	if w.Target.category == "session_summary" {
		if _, err := enforceWindow(w.root(), window{}, w.Now, w.note); err != nil {
			w.note("[WARN] rolling window not enforced: " + err.Error())
		}
	}
	return Answer{{"status", "created"}, {"target", w.Target.shown}, {"id", stem}, {"title", d.str("title")}}, nil
}

// checkCreatable refuses to overwrite a live record and enforces the
// 24-hour anti-resurrection window for retired ones.
func (w *writer) checkCreatable() error {
	_, old, err := w.readStored()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	switch old.status() {
	case StatusRetired:
		at, perr := parseStamp(old.str("retired_at"))
		if perr == nil && w.Now.Sub(at) < 24*time.Hour {
			return newError(ErrResurrection, "target", w.Target.shown, "retired_at", old.str("retired_at"),
				"fix", "Use a different title/slug, wait 24 hours, or restore the old record and update it")
		}
		return nil
	default:
		return newError(ErrCreate, "target", w.Target.shown, "error", "a record with status "+old.status()+" already exists here",
			"fix", "Use --action update (or a different slug)")
	}
}

func (w *writer) update(d doc) (Answer, error) {
	data, old, err := w.readStored()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, newError(ErrUpdate, "target", w.Target.shown, "error", "target does not exist",
			"fix", "Use --action create instead")
	}
	if err != nil {
		return nil, err
	}
	if w.Hash == "" {
		w.note("WARNING: --hash not provided for update. OCC protection disabled.")
	} else if err := w.checkHash(data); err != nil {
		return nil, err
	}
	inheritMissing(old, d)
	autoFix(d, false, w.Now, w.Warn)
	m := &merger{root: w.root(), old: old, new: d, now: w.Now, warn: w.note, fromTeam: w.FromTeam}
	if err := m.run(); err != nil {
		return nil, err
	}
	renamedFrom := w.maybeRename(old, d)
	if err := w.save(d, renamedFrom); err != nil {
		return nil, err
	}
	ans := Answer{{"status", "updated"}, {"target", w.Target.shown}, {"id", d.str("id")}, {"title", d.str("title")},
		{"times_updated", d["times_updated"]}}
	if renamedFrom != "" {
		ans = append(ans, Field{"renamed_from", IndexPath(w.root(), renamedFrom)})
	}
	return ans, nil
}

// checkHash is the OCC check: with --hash, the stored bytes must still
// be the ones the caller read.
func (w *writer) checkHash(data []byte) error {
	if cur := Hash(data); w.Hash != "" && !strings.EqualFold(cur, w.Hash) {
		return newError(ErrOCC, "target", w.Target.shown, "expected_hash", w.Hash, "current_hash", cur,
			"fix", "Re-read the file, re-apply your change and retry with the new hash")
	}
	return nil
}

// inherited are the fields an update input may leave out: absence keeps
// the stored value rather than reading as "remove all".
var inherited = []string{"tags", "related_files", "changes", "confidence", "title"}

func inheritMissing(old, d doc) {
	for _, k := range inherited {
		if _, ok := d[k]; !ok {
			if v, ok := old[k]; ok {
				d[k] = v
			}
		}
	}
}

// maybeRename moves the record to a new slug when its title changed by
// more than half its words and the new slug is free. It returns the old
// path when it did.
func (w *writer) maybeRename(old, d doc) string {
	if w.KeepID || titleChange(old.str("title"), d.str("title")) <= 0.5 {
		return ""
	}
	slug := TitleID(d.str("title"))
	if slug == "" || slug == d.str("id") {
		return ""
	}
	dest := filepath.Join(filepath.Dir(w.Target.abs), slug+".json")
	if _, err := os.Lstat(dest); err == nil {
		w.note("[WARN] title changed but " + IndexPath(w.root(), dest) + " exists; keeping slug " + d.str("id"))
		return ""
	}
	from := w.Target.abs
	w.Target.abs, w.Target.shown = dest, IndexPath(w.root(), dest)
	d["id"] = slug
	return from
}

// save validates d, writes it atomically, brings the index in line and,
// after a rename, removes the old file (new file and index first, so a
// crash leaves a duplicate at worst, never a loss).
func (w *writer) save(d doc, renamedFrom string) error {
	data, err := d.bytes()
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	if err := Validate(w.Target.category, data); err != nil {
		return err
	}
	return w.store(d, data, renamedFrom)
}

func (w *writer) store(d doc, data []byte, renamedFrom string) error {
	if err := os.MkdirAll(filepath.Dir(w.Target.abs), 0o755); err != nil {
		return fmt.Errorf("create category folder: %w", err)
	}
	shownIn := ""
	if w.View != nil {
		var err error
		if data, shownIn, err = w.render(d, data, renamedFrom); err != nil {
			return err
		}
	}
	if w.batch != nil {
		return w.batch.store(w, d, data, renamedFrom)
	}
	// What fails from here on fails after the view was changed: the
	// error says what was done.
	viewDone := ""
	if shownIn != "" {
		viewDone = shownIn + " already shows the change; the next records write or ingest takes it into the record"
	}
	marked := []string{w.Target.abs}
	if renamedFrom != "" {
		marked = append(marked, renamedFrom)
	}
	if err := markPending(w.root(), marked); err != nil {
		return partial(err, viewDone)
	}
	crashAt("marked")
	if err := atomicfile.WriteFile(w.Target.abs, data, 0o644); err != nil {
		return partial(fmt.Errorf("write record: %w", err), viewDone)
	}
	crashAt("record-written")
	drop, add := w.indexChange(d, renamedFrom)
	if err := updateIndex(w.root(), drop, add, w.note); err != nil {
		return partial(err, w.Target.shown+" is stored, but the index is not updated: a mark left for it makes the next records write do it")
	}
	crashAt("index-updated")
	stored := w.Target.shown + " is stored and indexed"
	if renamedFrom != "" {
		if err := os.Remove(renamedFrom); err != nil {
			return partial(fmt.Errorf("remove renamed record: %w", err), stored)
		}
		if err := atomicfile.SyncDir(filepath.Dir(renamedFrom)); err != nil {
			return partial(err, stored)
		}
	}
	return partial(clearPending(w.root()), stored)
}

// indexChange is what storing d does to the index: its line (and the
// line of the file it was renamed from) dropped, its new line added when
// it is active.
func (w *writer) indexChange(d doc, renamedFrom string) (drop []string, add []Entry) {
	if d.status() == StatusActive {
		add = append(add, EntryOf(w.root(), w.Target.abs, d.toRecord()))
	}
	drop = []string{w.Target.shown}
	if renamedFrom != "" {
		drop = append(drop, IndexPath(w.root(), renamedFrom))
	}
	return drop, add
}

// partial says what was done before err, when anything was.
func partial(err error, done string) error {
	if err == nil || done == "" {
		return err
	}
	return fmt.Errorf("%w (%s)", err, done)
}

// CheckIndexFiles refuses a root whose index or index update mark is
// not a regular file: a write would fail on it after it had stored the
// record (and changed its view), so it is refused before anything is.
func CheckIndexFiles(root string) error {
	for _, name := range []string{IndexFile, PendingFile} {
		if err := regfile.Check(filepath.Join(root, name)); err != nil {
			return fmt.Errorf("%w; nothing changed", err)
		}
	}
	return nil
}

// render shows d in the view and lists the view file in related_files,
// answering the bytes to store and the view file that shows it ("" for
// none).
func (w *writer) render(d doc, data []byte, renamedFrom string) ([]byte, string, error) {
	rec, err := ParseRecord(data)
	if err != nil {
		return nil, "", fmt.Errorf("render record: %w", err)
	}
	oldID := ""
	if renamedFrom != "" {
		oldID = strings.TrimSuffix(filepath.Base(renamedFrom), ".json")
	}
	file, err := w.View.Render(rec, oldID)
	if err != nil {
		return nil, "", fmt.Errorf("render record: %w", err)
	}
	if file == "" || slices.Contains(d.strings("related_files"), file) {
		return data, file, nil
	}
	d["related_files"] = append(d.list("related_files"), file)
	data, err = d.bytes()
	return data, file, err
}
