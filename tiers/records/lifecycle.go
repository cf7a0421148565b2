package records

import (
	"errors"
	"fmt"
	"io/fs"
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
		return nil, newError(w.errKind(), "target", w.t.shown, "error", "target does not exist",
			"fix", "Check the path (records index --query can find it)")
	}
	if err != nil {
		return nil, err
	}
	var ans Answer
	switch w.Action {
	case "retire":
		ans, err = w.retire(d)
	case "archive":
		ans, err = w.archive(d)
	case "unarchive":
		ans, err = w.unarchive(d)
	case "restore":
		ans, err = w.restore(d)
	default:
		return nil, newError(ErrInput, "field", "--action", "got", w.Action, "fix", "Use one of create, update, retire, delete, archive, unarchive, restore")
	}
	if err != nil || ans.Get("status") == "already_retired" || ans.Get("status") == "already_archived" {
		return ans, err
	}
	out, err := d.bytes()
	if err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	return ans, w.store(d, out, "")
}

func (w *writer) errKind() string {
	return map[string]string{"retire": ErrDelete, "archive": ErrArchive, "unarchive": ErrUnarchive, "restore": ErrRestore}[w.Action]
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
		return Answer{{"status", "already_retired"}, {"target", w.t.shown}}, nil
	case StatusArchived:
		return nil, newError(ErrDelete, "target", w.t.shown, "error", "record is archived; must unarchive before retiring",
			"fix", "Run --action unarchive first")
	}
	return w.settle(d, StatusRetired, StatusArchived, "Retired"), nil
}

func (w *writer) archive(d doc) (Answer, error) {
	switch d.status() {
	case StatusArchived:
		return Answer{{"status", "already_archived"}, {"target", w.t.shown}}, nil
	case StatusRetired:
		return nil, newError(ErrArchive, "target", w.t.shown, "error", "only active records can be archived (this one is retired)",
			"fix", "Run --action restore first")
	}
	return w.settle(d, StatusArchived, StatusRetired, "Archived"), nil
}

// settle moves d into the end state status (retired or archived): it
// stamps that state's <status>_at and _reason fields and clears those of
// the other end state, so a record never carries both.
func (w *writer) settle(d doc, status, other, verb string) Answer {
	reason := w.reason("No reason provided")
	d["record_status"], d[status+"_at"], d[status+"_reason"], d["updated_at"] = status, w.now(), reason, w.now()
	delete(d, other+"_at")
	delete(d, other+"_reason")
	d.appendChange(Change{Date: w.now(), Summary: verb + ": " + reason})
	return Answer{{"status", status}, {"target", w.t.shown}, {"reason", reason}}
}

// reactivate brings d back to active from the end state from, dropping
// that state's stamp, and answers with status answer.
func (w *writer) reactivate(d doc, from, summary, answer string) Answer {
	d["record_status"], d["updated_at"] = StatusActive, w.now()
	delete(d, from+"_at")
	delete(d, from+"_reason")
	d.appendChange(Change{Date: w.now(), Summary: summary})
	return Answer{{"status", answer}, {"target", w.t.shown}}
}

func (w *writer) unarchive(d doc) (Answer, error) {
	if d.status() != StatusArchived {
		return nil, newError(ErrUnarchive, "target", w.t.shown, "error", "only archived records can be unarchived (this one is "+d.status()+")",
			"fix", "Nothing to do, or use --action restore for a retired record")
	}
	return w.reactivate(d, StatusArchived, "Unarchived", "unarchived"), nil
}

// restore brings a retired record back while the grace period
// (delete.grace_period_days) has not run out.
func (w *writer) restore(d doc) (Answer, error) {
	if d.status() != StatusRetired {
		return nil, newError(ErrRestore, "target", w.t.shown, "error", "only retired records can be restored (this one is "+d.status()+")",
			"fix", "Use --action unarchive for an archived record")
	}
	cfg := configOrDefault(w.Root, w.Warn)
	grace := time.Duration(cfg.GracePeriodDays) * 24 * time.Hour
	if at, err := parseStamp(d.str("retired_at")); err == nil && w.Now.Sub(at) > grace {
		return nil, newError(ErrRestore, "target", w.t.shown, "retired_at", d.str("retired_at"),
			"error", fmt.Sprintf("the grace period of %d days has passed", cfg.GracePeriodDays),
			"fix", "Create a new record instead")
	}
	return w.reactivate(d, StatusRetired, "Restored from retirement", "restored"), nil
}
