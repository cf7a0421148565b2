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
// checkpoint's end. MIN and MAX come from the primary key; COUNT walks the
// rowid range, which is exact even when ids have gaps (deleted rows), so it
// costs time in proportion to the unsummarized rows, never to the table.
func (db *DB) Unsummarized() (Range, error) {
	cp, err := db.LatestCheckpoint()
	if err != nil {
		return Range{}, err
	}
	return db.rangeAfter(cp.EndOrZero())
}

func (db *DB) rangeAfter(after int64) (Range, error) {
	var begin, end sql.NullInt64
	var r Range
	err := db.sql.QueryRow(`SELECT MIN(id), MAX(id), COUNT(*) FROM conversations WHERE id > ?`, after).Scan(&begin, &end, &r.Count)
	if err != nil {
		return Range{}, db.wrap("count unsummarized", err)
	}
	if begin.Valid {
		r.Begin, r.End = &begin.Int64, &end.Int64
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

// SessionInit is the text of `c4 session-init`: the checkpoint summary, the
// unsummarized records (the last 6 when over threshold) and the trigger.
func (db *DB) SessionInit(threshold int) (string, error) {
	cp, err := db.LatestCheckpoint()
	if err != nil {
		return "", err
	}
	r, err := db.rangeAfter(cp.EndOrZero())
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(summaryLine(cp))
	if r.Count == 0 {
		b.WriteString("No new conversations since last checkpoint.\n")
		return b.String(), nil
	}
	over := r.Count > int64(threshold)
	limit := int(r.Count)
	if over {
		limit = recentCount
	}
	convs, err := db.lastConversations(cp.EndOrZero(), limit)
	if err != nil {
		return "", err
	}
	b.WriteString("[Recent Conversations]\n" + FormatConversations(convs))
	if over {
		b.WriteString("\n" + TriggerLine(r) + "\n")
	}
	return b.String(), nil
}
