package main

import (
	"fmt"

	"github.com/zylos/zylos-memory/scheduler"
)

// initScheduler registers the built-in memory tasks that are missing, and
// the daily git snapshot when asked; a user's changes to existing ones are
// kept.
func initScheduler(e *env, snapshots bool) error {
	added, err := scheduler.RegisterBuiltins(e.layout, e.now())
	if err != nil {
		return fmt.Errorf("init scheduler: %w", err)
	}
	if snapshots {
		ok, err := scheduler.RegisterSnapshotTask(e.layout, e.now())
		if err != nil {
			return fmt.Errorf("init scheduler: %w", err)
		}
		if ok {
			added = append(added, scheduler.SnapshotTask)
		}
	}
	for _, name := range added {
		fmt.Fprintf(e.stdout, "registered scheduled task %s\n", name)
	}
	return nil
}

// schedulerStatus is the scheduler section of `status`.
func schedulerStatus(e *env) error {
	loc, err := e.location()
	if err != nil {
		return err
	}
	return scheduler.WriteStatus(e.stdout, e.layout, loc)
}
