package scheduler

import (
	"context"
	"fmt"
	"time"
)

// due handles the slot t.NextRun, which is at or before now: it claims the
// slot as missed, waiting or running, moves the task to its next slot in
// the same transaction, and runs the action if the slot is its to run.
func (d *Daemon) due(t *Task, now time.Time) error {
	slot := t.NextRun
	next, err := d.nextSlot(t, slot, now)
	if err != nil {
		return d.disable(t, now, err)
	}
	status, detail := d.admit(t, slot, now)
	id, claimed, err := d.Store.claim(t.Name, slot, next, now, status, detail)
	if err != nil || !claimed {
		return err
	}
	d.Log.Info("slot claimed", "task", t.Name, "slot", slot, "status", status, "detail", detail, "next", next)
	if status != StatusRunning {
		return nil
	}
	return d.execute(t, &Run{ID: id, Task: t.Name, Slot: slot}, false)
}

// nextSlot is the slot after slot; when the daemon has fallen behind it is
// the first one after now, so a backlog collapses into one run.
func (d *Daemon) nextSlot(t *Task, slot, now time.Time) (time.Time, error) {
	loc, err := t.Location(d.Runner.Home)
	if err != nil {
		return time.Time{}, err
	}
	s, err := ParseSchedule(t.Schedule, loc)
	if err != nil {
		return time.Time{}, err
	}
	next := s.Next(slot)
	if !next.IsZero() && !next.After(now) {
		next = s.Next(now)
	}
	return next, nil
}

// admit decides what a due slot becomes.
func (d *Daemon) admit(t *Task, slot, now time.Time) (status, detail string) {
	if late := now.Sub(slot); t.MissWindow >= 0 && late > t.MissWindow {
		return StatusMissed, fmt.Sprintf("missed by %s (miss window %s)", late.Round(time.Second), t.MissWindow)
	}
	if !t.RequireIdle {
		return StatusRunning, ""
	}
	if d.hasWaiting(t.Name) {
		return StatusSkipped, "an earlier slot is still waiting for idle"
	}
	if !d.idle() {
		return StatusWaiting, "waiting for the agent to be idle"
	}
	return StatusRunning, ""
}

func (d *Daemon) hasWaiting(task string) bool {
	runs, err := d.Store.unfinished()
	if err != nil {
		return false
	}
	for _, r := range runs {
		if r.Task == task && r.Status == StatusWaiting {
			return true
		}
	}
	return false
}

func (d *Daemon) idle() bool {
	idle, note := AgentIdle(d.StatusFiles)
	if note != "" {
		d.Log.Info(note)
	}
	return idle
}

// execute runs the action of a claimed run and records its outcome.
func (d *Daemon) execute(t *Task, r *Run, retry bool) error {
	res := d.Runner.perform(t, r.Slot, d.Now(), retry)
	level := d.Log.Info
	if res.status == StatusError {
		level = d.Log.Warn
	}
	level("task ran", "task", t.Name, "slot", r.Slot, "status", res.status, "detail", res.detail)
	return d.Store.finish(r, d.Now(), res.status, res.detail)
}

// resume finishes claimed runs: at start-up those left running by a
// daemon that died (retried, skipping a C4 message that is already queued),
// and those waiting for idle once the agent is idle. Running rows are only
// retried at start-up: later they may be a trigger the CLI is running.
func (d *Daemon) resume(ctx context.Context, startup bool) error {
	runs, err := d.Store.unfinished()
	if err != nil || len(runs) == 0 {
		return err
	}
	checkedIdle, idle := false, false
	for _, r := range runs {
		if ctx.Err() != nil {
			return nil
		}
		t, err := d.Store.Get(r.Task)
		if err != nil {
			if err := d.Store.finish(r, d.Now(), StatusSkipped, "task removed"); err != nil {
				return err
			}
			continue
		}
		retry := r.Status == StatusRunning
		if retry && !startup {
			continue
		}
		if !retry && !t.Enabled {
			if err := d.Store.finish(r, d.Now(), StatusSkipped, "task paused while waiting"); err != nil {
				return err
			}
			continue
		}
		if !retry {
			if !checkedIdle {
				idle, checkedIdle = d.idle(), true
			}
			if !idle {
				continue
			}
			if started, err := d.Store.start(r.ID); err != nil || !started {
				return err
			}
		}
		if err := d.execute(t, r, retry); err != nil {
			return err
		}
	}
	return nil
}

// disable pauses a task whose schedule no longer parses (e.g. its timezone
// vanished from the system), so it is reported instead of retried forever.
func (d *Daemon) disable(t *Task, now time.Time, cause error) error {
	d.Log.Error("task disabled", "task", t.Name, "err", cause)
	return d.Store.mustChange(t.Name, `UPDATE tasks SET enabled = 0, last_status = 'error', last_error = ?, updated = ? WHERE name = ?`,
		cause.Error(), now.Unix(), t.Name)
}
