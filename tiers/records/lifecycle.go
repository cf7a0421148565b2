package records

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"
)

// lifecycle runs retire, archive, unarchive and restore: status moves
// that never take content from the caller.
func (w *writer) lifecycle() (Answer, error) {
	data, d, err := w.readStored()
	if err == nil {
		err = w.checkHash(data)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, newError(w.errKind(), "target", w.Target.shown, "error", "target does not exist",
			"fix", "Check the path (records index --query can find it)")
	}
	if err != nil {
		return nil, err
	}
	var ans Answer
	switch w.Action {
	case ActionRetire:
		ans, err = w.retire(d)
	case ActionArchive:
		ans, err = w.archive(d)
	case ActionUnarchive:
		ans, err = w.unarchive(d)
	case ActionRestore:
		ans, err = w.restore(d)
	default:
		return nil, newError(ErrInput, "field", "--action", "got", string(w.Action), "fix", "Use one of create, update, retire, delete, archive, unarchive, restore")
	}
	if status, _ := ans.Get("status").(string); err != nil || strings.HasPrefix(status, "already_") {
		return ans, err
	}
	if w.FromTeam == "" {
		resolveOnMove(d, w.now())
	}
	out, err := d.bytes()
	if err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	return ans, w.store(d, out, "")
}

// errKind names an action's error block. The soft delete answers in the
// spelling the caller used: DELETE_ERROR for --action delete (the claude-memory plugin),
// RETIRE_ERROR for --action retire (the plugin's current name).
func (w *writer) errKind() string {
	if w.Action == ActionRetire && w.spelledDelete {
		return ErrDelete
	}
	return map[Action]string{ActionRetire: ErrRetire, ActionArchive: ErrArchive, ActionUnarchive: ErrUnarchive, ActionRestore: ErrRestore}[w.Action]
}

// wrongStatus is the block for a lifecycle action refused by the record's
// current status, worded as the plugin words it ("Only active memories
// can be archived.") so callers that parse it keep working.
func (w *writer) wrongStatus(d doc, why, fix string) error {
	return newError(w.errKind(), "target", w.Target.shown, "record_status", d.status(), "error", why, "fix", fix)
}

func (w *writer) reason(def string) string {
	if w.Reason != "" {
		return Truncate(w.Reason, 300)
	}
	return def
}

func (w *writer) retire(d doc) (Answer, error) {
	switch d.status() {
	case StatusRetired:
		return Answer{{"status", "already_retired"}, {"target", w.Target.shown}}, nil
	case StatusArchived:
		return nil, w.wrongStatus(d, "Archived memories must be unarchived before retiring.", "Run --action unarchive first")
	}
	return w.settle(d, StatusRetired, StatusArchived, "Retired"), nil
}

func (w *writer) archive(d doc) (Answer, error) {
	switch d.status() {
	case StatusArchived:
		return Answer{{"status", "already_archived"}, {"target", w.Target.shown}}, nil
	case StatusRetired:
		return nil, w.wrongStatus(d, "Only active memories can be archived.", "Run --action restore first")
	}
	return w.settle(d, StatusArchived, StatusRetired, "Archived"), nil
}

// settle moves d into the end state status (retired or archived): it
// stamps that state's <status>_at and _reason fields and clears those of
// the other end state, so a record never carries both.
func (w *writer) settle(d doc, status, other, verb string) Answer {
	reason := w.reason("No reason provided")
	was := d.status()
	d["record_status"], d[status+"_at"], d[status+"_reason"], d["updated_at"] = status, w.now(), reason, w.now()
	delete(d, other+"_at")
	delete(d, other+"_reason")
	d.appendChange(statusChange(w.now(), verb+": "+reason, was, status))
	return Answer{{"status", status}, {"target", w.Target.shown}, {"reason", reason}}
}

// reactivate brings d back to active from the end state from, dropping
// that state's stamp, and answers with status answer.
func (w *writer) reactivate(d doc, from, summary, answer string) Answer {
	d["record_status"], d["updated_at"] = StatusActive, w.now()
	delete(d, from+"_at")
	delete(d, from+"_reason")
	d.appendChange(statusChange(w.now(), summary, from, StatusActive))
	return Answer{{"status", answer}, {"target", w.Target.shown}}
}

func (w *writer) unarchive(d doc) (Answer, error) {
	if d.status() != StatusArchived {
		return nil, w.wrongStatus(d, "Only archived memories can be unarchived.", "Nothing to do, or use --action restore for a retired record")
	}
	return w.reactivate(d, StatusArchived, "Unarchived", "unarchived"), nil
}

// restore brings a retired record back while the grace period
// (delete.grace_period_days) has not run out.
func (w *writer) restore(d doc) (Answer, error) {
	if d.status() == StatusActive {
		return Answer{{"status", "already_active"}, {"target", w.Target.shown}}, nil
	}
	if d.status() != StatusRetired {
		return nil, w.wrongStatus(d, "Only retired memories can be restored.", "Use --action unarchive for an archived record")
	}
	cfg := configOrDefault(w.root(), w.note)
	grace := time.Duration(cfg.GracePeriodDays) * 24 * time.Hour
	if at, err := parseStamp(d.str("retired_at")); err == nil && w.Now.Sub(at) > grace {
		return nil, newError(ErrRestore, "target", w.Target.shown, "retired_at", d.str("retired_at"),
			"error", fmt.Sprintf("the grace period of %d days has passed", cfg.GracePeriodDays),
			"fix", "Create a new record instead")
	}
	return w.reactivate(d, StatusRetired, "Restored from retirement", "restored"), nil
}

// statusChange is the changes[] entry of a lifecycle move: it names the
// field it moved (record_status) with the old and new value.
func statusChange(date, summary, from, to string) Change {
	return Change{Date: date, Summary: summary, Field: "record_status", OldValue: from, NewValue: to}
}
