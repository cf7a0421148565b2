package scheduler

import (
	"context"

	"github.com/zylos/zylos-memory/tiers/journal"
)

// journaled runs a task's action as one change of the memory journal:
// external edits found before it are committed first, then what the task
// changed, as the scheduler's. A journal failure is not the task's; the
// service's watch of the journal catches up and logs it.
func (r *Runner) journaled(task string, act func() outcome) outcome {
	j := journal.Open(r.Layout)
	ctx := context.Background()
	j.Commit(ctx, journal.Change{Source: journal.FromExternal})
	res := act()
	j.Commit(ctx, journal.Change{Source: journal.FromScheduler, Command: task})
	return res
}
