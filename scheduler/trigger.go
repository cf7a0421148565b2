package scheduler

import (
	"fmt"
	"time"
)

// Trigger runs a task now, outside its schedule, and records the run in the
// history; its schedule is not changed. Paused tasks can be triggered too.
func (r *Runner) Trigger(s *Store, name string, now time.Time) (*Run, error) {
	t, err := s.Get(name)
	if err != nil {
		return nil, err
	}
	slot := now.Truncate(time.Second)
	id, claimed, err := s.claim(t.Name, slot, t.NextRun, now, StatusRunning, "")
	if err != nil {
		return nil, err
	}
	if !claimed {
		return nil, fmt.Errorf("task %s already ran for %s; try again in a second", name, slot.Format(time.RFC3339))
	}
	run := &Run{ID: id, Task: t.Name, Slot: slot, Started: now}
	res := r.perform(t, slot, now, false)
	if err := s.finish(run, now, res.status, "trigger: "+res.detail); err != nil {
		return nil, err
	}
	run.Finished, run.Status, run.Detail = now, res.status, "trigger: "+res.detail
	return run, nil
}
