package c4sync

import (
	"database/sql"
	"slices"
)

// BacklogPoint is the C4 backlog at one checkpoint: how many conversations
// had arrived unsummarized just before it (Before) and were left after it
// (After), as ids count them.
type BacklogPoint struct {
	Timestamp     string // the checkpoint's, SQLite UTC text
	Before, After int64
}

// Backlog is the backlog at each of the last limit checkpoints, oldest
// first. The last conversation before a checkpoint is found through the
// timestamp index (one seek a checkpoint), so the cost does not grow with
// the table; ids stand in for counts, as gaps from deleted rows are rare.
func (db *DB) Backlog(limit int) ([]BacklogPoint, error) {
	cps, err := db.Checkpoints(limit + 1)
	if err != nil {
		return nil, err
	}
	slices.Reverse(cps)
	stmt, err := db.sql.Prepare(`SELECT id FROM conversations WHERE timestamp <= ? ORDER BY timestamp DESC LIMIT 1`)
	if err != nil {
		return nil, db.wrap("read backlog", err)
	}
	defer stmt.Close()
	var out []BacklogPoint
	for i, cp := range cps {
		if i == 0 && len(cps) > limit {
			continue // only the end of the one before the window
		}
		var last sql.NullInt64
		if err := stmt.QueryRow(cp.Timestamp).Scan(&last); err != nil && err != sql.ErrNoRows {
			return nil, db.wrap("read backlog", err)
		}
		var prevEnd int64
		if i > 0 {
			prevEnd = cps[i-1].EndOrZero()
		}
		out = append(out, BacklogPoint{Timestamp: cp.Timestamp,
			Before: max(last.Int64-prevEnd, 0), After: max(last.Int64-cp.EndOrZero(), 0)})
	}
	return out, nil
}
