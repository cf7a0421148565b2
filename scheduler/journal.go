package scheduler

import (
	"context"
	"time"

	c4sync "github.com/zylos/zylos-memory/sync"
	opened "github.com/zylos/zylos-memory/tiers/home"
	"github.com/zylos/zylos-memory/tiers/journal"
)

// asChange runs a task's action at now as one change of its home (see
// home.Around): the external edits found before it are committed first,
// then what the task changed, as the scheduler's. A journal failure is
// not the task's; the service's watch of the journal catches up and logs
// it. The home is opened for the task, and act works on it.
func (r *Runner) asChange(task string, now time.Time, act func(h *opened.Home) outcome) outcome {
	h := opened.Of(r.Layout, opened.Options{Now: func() time.Time { return now }, Conversations: c4sync.OpenConversations})
	var res outcome
	h.Around(context.Background(), journal.Change{Source: journal.FromScheduler, Command: task}, func() error {
		res = act(h)
		return nil
	})
	return res
}
