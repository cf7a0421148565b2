package scheduler

import (
	"database/sql"
	"fmt"
	"net/url"

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
	db  *c4sync.DB
	raw *sql.DB // read-only, for the query c4sync does not offer
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
	raw, err := sql.Open("sqlite3", "file:"+db.Path()+"?"+url.Values{"mode": {"ro"}, "_busy_timeout": {"5000"}}.Encode())
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open c4 db: %w", err)
	}
	r.c4 = &c4Queue{db: db, raw: raw}
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
	q.raw.Close()
	return q.db.Close()
}

// syncTrigger is the "[Action Required] ... /memory sync" line when any
// conversation is unsummarized, "" when none is.
func (q *c4Queue) syncTrigger(kind tiers.Kind) (string, error) {
	r, err := q.db.Unsummarized()
	if err != nil || r.Count == 0 {
		return "", err
	}
	return c4sync.TriggerLineFor(kind, r), nil
}

// syncPending reports whether any sync request is still pending. An exact
// text match is not enough: each queued request is itself a conversation,
// so the next request names one more and would never match the last.
func (q *c4Queue) syncPending() (bool, error) {
	var n int
	err := q.raw.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM conversations
		WHERE status = 'pending' AND direction = 'in' AND channel = ? AND content LIKE ? LIMIT 1)`,
		c4Channel, syncRequestPattern).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("find pending sync request: %w", err)
	}
	return n > 0, nil
}

// syncRequestPattern matches every c4sync.TriggerLineFor, of either layout.
const syncRequestPattern = "[Action Required] There are % unsummarized conversations (conversation id % ~ %). Please %"

func (q *c4Queue) hasPending(content string) (bool, error) { return q.db.HasPending(content) }

// enqueue queues content under the slot key; queued is false when the key
// had queued it already (id is then that message).
func (q *c4Queue) enqueue(key, content string, priority int, requireIdle bool) (id int64, queued bool, err error) {
	return q.db.EnqueueOnce(c4sync.Message{Channel: c4Channel, Content: content, Priority: priority, RequireIdle: requireIdle}, key)
}
