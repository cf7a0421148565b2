package c4sync

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/zylos/zylos-memory/tiers"
)

// recentCount is how many records session-init shows over the threshold.
const recentCount = 6

// Range is the unsummarized conversations: ids after the latest checkpoint.
// Begin and End are nil when there are none.
type Range struct {
	Begin *int64 `json:"begin_id"`
	End   *int64 `json:"end_id"`
	Count int64  `json:"count"`
}

// Unsummarized returns the range of conversations after the latest
// checkpoint's end.
func (db *DB) Unsummarized() (Range, error) {
	cp, err := db.LatestCheckpoint()
	if err != nil {
		return Range{}, err
	}
	return db.rangeAfter(cp.EndOrZero())
}

// rangeAfter reads the range of ids above after in one snapshot. MIN and
// MAX are single primary-key seeks. The count must be exact, and ids can
// have gaps (deleted rows), so end-begin+1 will not do; counting walks a
// rowid range, so it walks the smaller side: the rows after the checkpoint
// (the everyday case: a few dozen), or, when most of the table is
// unsummarized, all rows minus those up to the checkpoint. SQLite answers a
// bare COUNT(*) from its smallest index without touching the table.
func (db *DB) rangeAfter(after int64) (Range, error) {
	tx, err := db.sql.Begin()
	if err != nil {
		return Range{}, db.wrap("count unsummarized", err)
	}
	defer tx.Rollback()
	var first, last, lowest sql.NullInt64
	err = tx.QueryRow(`SELECT (SELECT MIN(id) FROM conversations WHERE id > ?), (SELECT MAX(id) FROM conversations),
 (SELECT MIN(id) FROM conversations)`, after).Scan(&first, &last, &lowest)
	if err != nil {
		return Range{}, db.wrap("count unsummarized", err)
	}
	if !first.Valid {
		return Range{}, nil
	}
	r := Range{Begin: &first.Int64, End: &last.Int64}
	query := `SELECT COUNT(*) FROM conversations WHERE id > ?`
	if last.Int64-after > after-lowest.Int64 {
		query = `SELECT (SELECT COUNT(*) FROM conversations) - (SELECT COUNT(*) FROM conversations WHERE id <= ?)`
	}
	if err := tx.QueryRow(query, after).Scan(&r.Count); err != nil {
		return Range{}, db.wrap("count unsummarized", err)
	}
	return r, nil
}

// ThresholdCheck is the text of `c4 threshold-check` in a home of kind:
// its trigger line and a newline when the count is over threshold, else
// nothing.
func (db *DB) ThresholdCheck(kind *tiers.Kind, threshold int) (string, error) {
	r, err := db.Unsummarized()
	if err != nil || r.Count <= int64(threshold) {
		return "", err
	}
	return TriggerLine(kind, r) + "\n", nil
}

// TriggerLine is the `[Action Required]` line (no newline) asking for the
// sync of r in the words of the layout's memory skill.
func TriggerLine(kind *tiers.Kind, r Range) string { return triggerPrefix + syncAsk(kind, r) }

const (
	triggerPrefix = "[Action Required] "
	// askFormat is the count and range of the conversations, then the
	// layout's own request (tiers.Kind.SyncTrigger).
	askFormat = "There are %d unsummarized conversations (conversation id %d ~ %d). %s"
)

// syncAsk says how many conversations r holds and asks for their sync.
func syncAsk(kind *tiers.Kind, r Range) string {
	var b, e int64
	if r.Begin != nil {
		b, e = *r.Begin, *r.End
	}
	return fmt.Sprintf(askFormat, r.Count, b, e, kind.SyncTrigger(b, e))
}

// triggerPattern matches, as a LIKE pattern, every line TriggerLine
// writes, of any layout and for any range: its format with each verb a
// wildcard.
func triggerPattern() string {
	return triggerPrefix + strings.NewReplacer("%d", "%", "%s", "%").Replace(askFormat)
}

// SyncRequestPending reports whether a sync trigger queued on channel is
// still pending. An exact text match is not enough: each queued request is
// itself a conversation, so the next request names one more and would never
// match the last.
func (db *DB) SyncRequestPending(channel string) (bool, error) {
	var n int
	err := db.sql.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM conversations
		WHERE status = 'pending' AND direction = 'in' AND channel = ? AND content LIKE ? LIMIT 1)`,
		channel, triggerPattern()).Scan(&n)
	if err != nil {
		return false, db.wrap("find pending sync request", err)
	}
	return n > 0, nil
}

// sessionRange reads the latest checkpoint and the unsummarized range
// after it, what every session-init starts from.
func (db *DB) sessionRange() (*Checkpoint, Range, error) {
	cp, err := db.LatestCheckpoint()
	if err != nil {
		return nil, Range{}, err
	}
	r, err := db.rangeAfter(cp.EndOrZero())
	return cp, r, err
}

// shown says whether r is over the threshold and how many of its records
// session-init shows: all of them, or the last 6 when over.
func shown(r Range, threshold int) (over bool, limit int64) {
	if r.Count > int64(threshold) {
		return true, recentCount
	}
	return false, r.Count
}

// SessionInit is the session-init text in its parts, so that a reader who
// must cut it to a budget drops whole conversations without parsing the
// text back.
type SessionInit struct {
	Head    string   // the checkpoint summary and the conversations' heading
	Records []string // the conversations shown, oldest first, each with what separates it from the next
	Tail    string   // what follows them: the sync trigger, if any
	Trigger bool     // the text asks the agent for a memory sync
}

// String is the text of `c4 session-init`.
func (s SessionInit) String() string {
	return s.Head + strings.Join(s.Records, "") + s.Tail
}

// sessionInitLines is the session-init text in the v2-era framing: the
// checkpoint summary line, the unsummarized records (the last 6 when over
// threshold) and the trigger line.
func (db *DB) sessionInitLines(kind *tiers.Kind, threshold int) (SessionInit, error) {
	cp, r, err := db.sessionRange()
	if err != nil {
		return SessionInit{}, err
	}
	s := SessionInit{Head: summaryLine(cp)}
	if r.Count == 0 {
		s.Head += "No new conversations since last checkpoint.\n"
		return s, nil
	}
	over, limit := shown(r, threshold)
	recs, err := db.recordList(`WHERE id > ? ORDER BY id DESC LIMIT ?`, cp.EndOrZero(), limit)
	if err != nil {
		return SessionInit{}, err
	}
	// Each record ends in a newline and an empty line follows it, as the
	// Node C4 prints them: joined by a newline, then console.log's.
	s.Head += "[Recent Conversations]\n"
	for _, rec := range recs {
		s.Records = append(s.Records, rec+"\n")
	}
	if over {
		s.Tail, s.Trigger = TriggerLine(kind, r)+"\n", true
	}
	return s, nil
}
