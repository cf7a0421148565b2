package scheduler

import (
	"database/sql"
	"fmt"
	"time"
)

// Run statuses. A run row is created in the same transaction that moves
// the task to its next slot, so a slot is claimed exactly once.
const (
	StatusRunning = "running" // claimed and acting (or interrupted by a crash)
	StatusOK      = "ok"
	StatusError   = "error"
	StatusSkipped = "skipped" // nothing to do (e.g. an identical request pending)
	StatusMissed  = "missed"  // the daemon was down past the miss window
	StatusWaiting = "waiting" // due, but the task needs the agent idle
)

// Run is one row of the history.
type Run struct {
	ID       int64     `json:"id"`
	Task     string    `json:"task"`
	Slot     time.Time `json:"slot"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitzero"`
	Status   string    `json:"status"`
	Detail   string    `json:"detail,omitempty"`
}

// claim records the run of task for slot with status and moves the task to
// next (zero: no more slots). It reports false when the slot was claimed
// before, e.g. by a daemon that was killed after claiming.
func (s *Store) claim(task string, slot, next, now time.Time, status, detail string) (int64, bool, error) {
	tx, err := s.db.Begin()
	if err != nil {
		return 0, false, fmt.Errorf("claim %s: %w", task, err)
	}
	defer tx.Rollback()
	finished := sql.NullInt64{}
	if status != StatusRunning && status != StatusWaiting {
		finished = toUnix(now)
	}
	res, err := tx.Exec(`INSERT INTO runs (task, slot, started, finished, status, detail)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (task, slot) DO NOTHING`,
		task, slot.Unix(), now.Unix(), finished, status, detail)
	if err != nil {
		return 0, false, fmt.Errorf("claim %s: %w", task, err)
	}
	n, _ := res.RowsAffected()
	id, _ := res.LastInsertId()
	if _, err := tx.Exec(`UPDATE tasks SET next_run = ? WHERE name = ?`, toUnix(next), task); err != nil {
		return 0, false, fmt.Errorf("advance %s: %w", task, err)
	}
	if n == 1 && finished.Valid {
		if err := setLast(tx, task, slot, status, detail); err != nil {
			return 0, false, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, false, fmt.Errorf("claim %s: %w", task, err)
	}
	return id, n == 1, nil
}

// start moves a waiting run to running; false if someone else did first.
func (s *Store) start(id int64) (bool, error) {
	res, err := s.db.Exec(`UPDATE runs SET status = 'running' WHERE id = ? AND status = 'waiting'`, id)
	if err != nil {
		return false, fmt.Errorf("start run %d: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// finish records the outcome of a run on the run and on its task.
func (s *Store) finish(r *Run, now time.Time, status, detail string) error {
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("finish run %d: %w", r.ID, err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`UPDATE runs SET finished = ?, status = ?, detail = ? WHERE id = ?`,
		now.Unix(), status, detail, r.ID); err != nil {
		return fmt.Errorf("finish run %d: %w", r.ID, err)
	}
	if err := setLast(tx, r.Task, now, status, detail); err != nil {
		return err
	}
	return tx.Commit()
}

func setLast(tx *sql.Tx, task string, at time.Time, status, detail string) error {
	lastErr := ""
	if status == StatusError {
		lastErr = detail
	}
	_, err := tx.Exec(`UPDATE tasks SET last_run = ?, last_status = ?, last_error = ? WHERE name = ?`,
		at.Unix(), status, lastErr, task)
	if err != nil {
		return fmt.Errorf("record last run of %s: %w", task, err)
	}
	return nil
}

const runColumns = `id, task, slot, started, finished, status, detail`

func scanRun(row interface{ Scan(...any) error }) (*Run, error) {
	var r Run
	var slot, started int64
	var finished sql.NullInt64
	if err := row.Scan(&r.ID, &r.Task, &slot, &started, &finished, &r.Status, &r.Detail); err != nil {
		return nil, err
	}
	r.Slot = time.Unix(slot, 0).UTC()
	r.Started = time.Unix(started, 0).UTC()
	r.Finished = fromUnix(finished)
	return &r, nil
}

func (s *Store) queryRuns(query string, args ...any) ([]*Run, error) {
	rows, err := s.db.Query(query, args...)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer rows.Close()
	var runs []*Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("read history: %w", err)
		}
		runs = append(runs, r)
	}
	return runs, rows.Err()
}

// unfinished returns runs that were claimed but not finished: waiting for
// idle, or running when the daemon died.
func (s *Store) unfinished() ([]*Run, error) {
	return s.queryRuns(`SELECT ` + runColumns + ` FROM runs
		WHERE status IN ('waiting', 'running') ORDER BY id`)
}

// History returns the last limit runs (of task, if not empty), oldest first.
func (s *Store) History(task string, limit int) ([]*Run, error) {
	if limit <= 0 {
		limit = 20
	}
	return s.queryRuns(`SELECT `+runColumns+` FROM (
		SELECT `+runColumns+` FROM runs WHERE ? = '' OR task = ? ORDER BY id DESC LIMIT ?
	) ORDER BY id`, task, task, limit)
}
