package scheduler

import (
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

// c4Channel is the C4 channel of everything the scheduler queues, as
// zylos's `c4-receive --no-reply` does for system messages.
const c4Channel = "system"

// c4Queue is the C4 access the tasks need. The runner keeps it open
// between runs: closing the last connection to a WAL database checkpoints
// it, which costs more than the dispatch itself.
type c4Queue struct {
	db *c4sync.DB
}

// openC4 returns the runner's open C4 connection, opening it if needed.
func (r *Runner) openC4() (*c4Queue, error) {
	if r.c4 != nil {
		return r.c4, nil
	}
	db, err := c4sync.OpenWrite(r.Layout.C4DB())
	if err != nil {
		return nil, err
	}
	r.c4 = &c4Queue{db: db}
	return r.c4, nil
}

// Close releases the runner's C4 connection; the next run reopens it (so
// a failed run also starts afresh, e.g. after C4 was replaced).
func (r *Runner) Close() error {
	if r.c4 == nil {
		return nil
	}
	q := r.c4
	r.c4 = nil
	return q.db.Close()
}

// syncTrigger is the "[Action Required] ... /memory sync" line when any
// conversation is unsummarized, "" when none is.
func (q *c4Queue) syncTrigger(kind *tiers.Kind) (string, error) {
	r, err := q.db.Unsummarized()
	if err != nil || r.Count == 0 {
		return "", err
	}
	return c4sync.TriggerLine(kind, r), nil
}

// syncPending reports whether a sync request is still pending.
func (q *c4Queue) syncPending() (bool, error) { return q.db.SyncRequestPending(c4Channel) }

func (q *c4Queue) hasPending(content string) (bool, error) { return q.db.HasPending(content) }

// enqueue queues content under the slot key; queued is false when the key
// had queued it already (id is then that message).
func (q *c4Queue) enqueue(key, content string, priority int, requireIdle bool) (id int64, queued bool, err error) {
	return q.db.EnqueueOnce(c4sync.Message{Channel: c4Channel, Content: content, Priority: priority, RequireIdle: requireIdle}, key)
}
