package c4sync

import (
	"database/sql"
	"fmt"
	"strings"
)

// DefaultThreshold is the unsummarized count above which a sync is asked for.
const DefaultThreshold = 30

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

// TriggerLine is the `[Action Required]` instruction for r (no newline).
func TriggerLine(r Range) string {
	var b, e int64
	if r.Begin != nil {
		b, e = *r.Begin, *r.End
	}
	return fmt.Sprintf("[Action Required] There are %d unsummarized conversations (conversation id %d ~ %d). Please invoke Memory Sync skill to process them: /memory sync --begin %d --end %d",
		r.Count, b, e, b, e)
}

// ThresholdCheck is the text of `c4 threshold-check`: the trigger line and
// a newline when the count is over threshold, else nothing.
func (db *DB) ThresholdCheck(threshold int) (string, error) {
	r, err := db.Unsummarized()
	if err != nil || r.Count <= int64(threshold) {
		return "", err
	}
	return TriggerLine(r) + "\n", nil
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

// SessionInit is the text of `c4 session-init`: the checkpoint summary, the
// unsummarized records (the last 6 when over threshold) and the trigger.
func (db *DB) SessionInit(threshold int) (string, error) {
	cp, r, err := db.sessionRange()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(summaryLine(cp))
	if r.Count == 0 {
		b.WriteString("No new conversations since last checkpoint.\n")
		return b.String(), nil
	}
	over, limit := shown(r, threshold)
	recs, _, err := db.records(`WHERE id > ? ORDER BY id DESC LIMIT ?`, cp.EndOrZero(), limit)
	if err != nil {
		return "", err
	}
	// The records end in a newline and console.log adds one: an empty line
	// closes them, before the trigger or at the end.
	b.WriteString("[Recent Conversations]\n" + recs + "\n")
	if over {
		b.WriteString(TriggerLine(r) + "\n")
	}
	return b.String(), nil
}
