package c4sync

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"
)

// Checkpoint is one row of the checkpoints table. Timestamp is SQLite UTC
// text; nil pointers are NULL columns.
type Checkpoint struct {
	ID        int64   `json:"id"`
	Timestamp string  `json:"timestamp"`
	Summary   *string `json:"summary"`
	Start     *int64  `json:"start_conversation_id"`
	End       *int64  `json:"end_conversation_id"`
}

// EndOrZero is the last summarized conversation id; NULL counts as 0.
func (c *Checkpoint) EndOrZero() int64 {
	if c == nil || c.End == nil {
		return 0
	}
	return *c.End
}

const selectCheckpoints = `SELECT id, COALESCE(CAST(timestamp AS TEXT), ''), summary,
 start_conversation_id, end_conversation_id FROM checkpoints `

// LatestCheckpoint returns the newest checkpoint (highest id), or nil.
func (db *DB) LatestCheckpoint() (*Checkpoint, error) {
	cps, err := db.Checkpoints(1)
	if err != nil || len(cps) == 0 {
		return nil, err
	}
	return &cps[0], nil
}

// Checkpoints returns up to limit checkpoints, newest first; all of them
// when limit is negative.
func (db *DB) Checkpoints(limit int) ([]Checkpoint, error) {
	rows, err := db.sql.Query(selectCheckpoints+`ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, db.wrap("read checkpoints", err)
	}
	defer rows.Close()
	cps := []Checkpoint{}
	for rows.Next() {
		var c Checkpoint
		var summary sql.NullString
		var start, end sql.NullInt64
		if err := rows.Scan(&c.ID, &c.Timestamp, &summary, &start, &end); err != nil {
			return nil, db.wrap("read checkpoint", err)
		}
		if summary.Valid {
			c.Summary = &summary.String
		}
		if start.Valid {
			c.Start = &start.Int64
		}
		if end.Valid {
			c.End = &end.Int64
		}
		cps = append(cps, c)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("read checkpoints", err)
	}
	return cps, nil
}

// Created is the answer of a checkpoint creation, in the Node key order.
type Created struct {
	ID    int64  `json:"id"`
	Start int64  `json:"start_conversation_id"`
	End   int64  `json:"end_conversation_id"`
	Time  string `json:"timestamp"` // ISO 8601 UTC with milliseconds
}

// ErrCheckpointRange reports an end id that would move a checkpoint backwards.
var ErrCheckpointRange = errors.New("invalid checkpoint range")

// CreateCheckpoint records that conversations up to end are summarized. The
// start is the previous checkpoint's end + 1; an end below it is refused,
// and so is any checkpoint after one that ends at SQLite's largest id.
func (db *DB) CreateCheckpoint(end int64, summary *string) (Created, error) {
	return db.createCheckpoint(end, summary, nil)
}

// guard vets a checkpoint [start, end] inside the writing transaction, so
// nothing can change between the check and the insert.
type guard func(tx *sql.Tx, start, end int64) error

func (db *DB) createCheckpoint(end int64, summary *string, check guard) (Created, error) {
	tx, err := db.sql.Begin()
	if err != nil {
		return Created{}, db.wrap("begin checkpoint", err)
	}
	defer tx.Rollback()
	var prev sql.NullInt64
	err = tx.QueryRow(`SELECT end_conversation_id FROM checkpoints ORDER BY id DESC LIMIT 1`).Scan(&prev)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Created{}, db.wrap("read checkpoint", err)
	}
	switch {
	case prev.Int64 < 0:
		return Created{}, fmt.Errorf("%w: the previous checkpoint ends at %d, which is not a conversation id (check the checkpoints table)", ErrCheckpointRange, prev.Int64)
	case prev.Int64 == math.MaxInt64:
		return Created{}, fmt.Errorf("%w: the previous checkpoint ends at %d, the largest id SQLite can store; no conversation can follow it", ErrCheckpointRange, prev.Int64)
	}
	start := prev.Int64 + 1
	if end < start {
		return Created{}, fmt.Errorf("%w: end id %d is below start id %d (the previous checkpoint ends at %d)", ErrCheckpointRange, end, start, prev.Int64)
	}
	if check != nil {
		if err := check(tx, start, end); err != nil {
			return Created{}, err
		}
	}
	now := db.now().UTC()
	res, err := tx.Exec(`INSERT INTO checkpoints (timestamp, summary, start_conversation_id, end_conversation_id) VALUES (?, ?, ?, ?)`,
		sqliteTime(now), summary, start, end)
	if err != nil {
		return Created{}, db.wrap("insert checkpoint", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return Created{}, db.wrap("insert checkpoint", err)
	}
	if err := tx.Commit(); err != nil {
		return Created{}, db.wrap("commit checkpoint", err)
	}
	return Created{ID: id, Start: start, End: end, Time: isoMillis(now)}, nil
}

// isoMillis formats t as JavaScript's Date.toISOString does.
func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
