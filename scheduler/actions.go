package scheduler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/fulltext"
	opened "github.com/zylos/zylos-memory/tiers/home"
	"github.com/zylos/zylos-memory/tiers/journal"
)

// Runner executes tasks' actions, one at a time (it is not safe for
// concurrent use: it keeps one C4 connection).
type Runner struct {
	Layout tiers.Layout
	Home   *time.Location

	c4 *c4Queue // open between runs; see openC4
}

// outcome is how an action ended: a run status and a line of detail.
type outcome struct{ status, detail string }

func ok(format string, args ...any) outcome { return outcome{StatusOK, fmt.Sprintf(format, args...)} }
func skipped(format string, args ...any) outcome {
	return outcome{StatusSkipped, fmt.Sprintf(format, args...)}
}
func failed(err error) outcome { return outcome{StatusError, err.Error()} }

// perform runs t's action for slot at now. retry is set when the run was
// interrupted before (a crash): a C4 message the slot already queued is
// then found by its slot key instead of being queued again.
func (r *Runner) perform(t *Task, slot, now time.Time, retry bool) outcome {
	res := r.asChange(t.Name, now, func(h *opened.Home) outcome { return r.act(h, t, slotKey(t.Name, slot), now, retry) })
	if res.status == StatusError {
		r.Close()
	}
	return res
}

// slotKey names one slot of one task; the C4 message a slot queues is
// stored with it (see c4sync.EnqueueOnce), so a slot queues at most once.
func slotKey(task string, slot time.Time) string {
	return fmt.Sprintf("scheduler:%s@%d", task, slot.Unix())
}

func (r *Runner) act(h *opened.Home, t *Task, key string, now time.Time, retry bool) outcome {
	if retry && queuesToC4(t) {
		if res, done := r.queuedBefore(key); done {
			return res
		}
	}
	switch {
	case t.Kind == KindUser:
		return r.queue(key, UserContent(t), t.Priority, t.RequireIdle, false)
	case t.Name == SyncTask:
		return r.syncTrigger(h, t, key)
	case t.Name == RotationTask:
		return r.rotate(h, now)
	case t.Name == ConsolidationTask:
		return r.consolidate(h, t, key, now)
	case t.Name == SnapshotTask:
		return r.snapshot(h, now)
	}
	return failed(fmt.Errorf("unknown built-in task %q", t.Name))
}

// queuesToC4 reports whether t's action may queue a C4 message.
func queuesToC4(t *Task) bool {
	return t.Kind == KindUser || t.Name == SyncTask || t.Name == ConsolidationTask
}

// queuedBefore finds the C4 message an interrupted run of the slot queued
// before it died; done is false when it queued none.
func (r *Runner) queuedBefore(key string) (res outcome, done bool) {
	c4, err := r.openC4()
	if err != nil {
		return failed(err), true
	}
	id, found, err := c4.db.QueuedFor(key)
	switch {
	case err != nil:
		return failed(err), true
	case found:
		return ok("queued C4 message %d before an interruption", id), true
	}
	return outcome{}, false
}

// UserContent is the C4 message a user task queues.
func UserContent(t *Task) string {
	return fmt.Sprintf("[Scheduled Task: %s] %s", t.Name, t.Prompt)
}

// queue enqueues content for the slot key unless dedupe finds an
// identical pending message.
func (r *Runner) queue(key, content string, priority int, idle, dedupe bool) outcome {
	c4, err := r.openC4()
	if err != nil {
		return failed(err)
	}
	return enqueue(c4, key, content, priority, idle, dedupe)
}

func enqueue(c4 *c4Queue, key, content string, priority int, idle, dedupe bool) outcome {
	if dedupe {
		if pending, err := c4.hasPending(content); err != nil {
			return failed(err)
		} else if pending {
			return skipped("already queued in C4")
		}
	}
	crashpoint.At("scheduler-before-queue")
	id, queued, err := c4.enqueue(key, content, priority, idle)
	if err != nil {
		return failed(err)
	}
	crashpoint.At("scheduler-after-queue")
	if !queued {
		return ok("queued C4 message %d before an interruption", id)
	}
	return ok("queued C4 message %d (priority %d)", id, priority)
}

// syncTrigger queues the memory sync request at priority 1 when C4 has
// unsummarized conversations and no sync request is still pending (zylos
// queued another every 2 hours while the agent was busy).
func (r *Runner) syncTrigger(h *opened.Home, t *Task, key string) outcome {
	c4, err := r.openC4()
	if err != nil {
		return failed(err)
	}
	line, err := c4.syncTrigger(h.Kind)
	if err != nil {
		return failed(err)
	}
	if line == "" {
		return skipped("no unsummarized conversations")
	}
	if pending, err := c4.syncPending(); err != nil {
		return failed(err)
	} else if pending {
		return skipped("a sync request is still pending in C4")
	}
	return enqueue(c4, key, line, t.Priority, t.RequireIdle, false)
}

// rotate runs session rotation in-process; it is idempotent, which is why
// a missed rotation always catches up.
func (r *Runner) rotate(h *opened.Home, now time.Time) outcome {
	steps, err := tiers.Rotate(h.Layout, now.In(r.Home))
	msgs := steps.Messages(h.Kind)
	if err != nil {
		return failed(err)
	}
	// The daily pass also takes the day's hand edits of the reference tier
	// into the records.
	if h.HasView() {
		rep, err := h.Ingest(false, 0)
		if err != nil {
			return failed(fmt.Errorf("%s; ingest: %w", strings.Join(msgs, " "), err))
		}
		msgs = append(msgs, fmt.Sprintf("Ingested the reference tier: %d changes, %d entries left alone.", len(rep.Changes), len(rep.Problems)))
	}
	if err := updateSearchIndex(h.Index("")); err != nil {
		msgs = append(msgs, fmt.Sprintf("(search index not updated: %v)", err))
	}
	return ok("%s", strings.Join(msgs, " "))
}

// snapshot commits memory/ to git; no git, no change or a busy repository
// is a skipped run, never a failure of the daemon.
func (r *Runner) snapshot(h *opened.Home, now time.Time) outcome {
	msg, err := h.Journal().Snapshot(now.In(r.Home))
	if errors.Is(err, journal.ErrSnapshotSkipped) {
		return skipped("%s", strings.TrimPrefix(err.Error(), journal.ErrSnapshotSkipped.Error()+": "))
	}
	if err != nil {
		return failed(err)
	}
	return ok("%s", msg)
}

// updateSearchIndex runs the daily full update of the recall index, after
// the rotation: it finds what the quick updates of prompts and searches
// miss, a file edited in place in a directory that did not change.
func updateSearchIndex(index fulltext.Scope) error {
	ix, err := fulltext.Open(context.Background(), index, fulltext.Options{})
	if err != nil {
		return err
	}
	defer ix.Close()
	_, err = ix.Update(context.Background(), true)
	return err
}

// ReportPath is where the weekly consolidation report of day goes.
func ReportPath(l tiers.Layout, day time.Time) string {
	return filepath.Join(l.StateDir(), "reports", "consolidation-"+day.Format("2006-01-02")+".json")
}

// consolidate writes the report (the JSON `consolidate` prints) and asks
// the agent to review it when it recommends anything.
func (r *Runner) consolidate(h *opened.Home, t *Task, key string, now time.Time) outcome {
	local := now.In(r.Home)
	report, n, err := h.Kind.ConsolidationReport(h.Layout, local)
	if err != nil {
		return failed(fmt.Errorf("consolidate: %w", err))
	}
	path := ReportPath(h.Layout, local)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return failed(fmt.Errorf("create reports dir: %w", err))
	}
	atomicfile.Sweep(filepath.Dir(path))
	if err := atomicfile.Write(path, 0o600, func(w io.Writer) error { return tiers.WriteIndentedJSON(w, report) }); err != nil {
		return failed(fmt.Errorf("write report: %w", err))
	}
	if n == 0 {
		return ok("report %s: no recommendations", path)
	}
	content := fmt.Sprintf("[Scheduled Task: %s] The weekly memory consolidation report has %d recommendation(s). "+
		"Review %s and archive old entries as recommended.", t.Name, n, path)
	res := r.queue(key, content, t.Priority, t.RequireIdle, true)
	res.detail = "report " + path + "; " + res.detail
	return res
}
