package scheduler

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrExists is returned when adding a task whose name is taken.
var ErrExists = errors.New("task already exists")

// Add stores a new task with its first slot after now; home is the
// timezone of tasks without their own.
func (s *Store) Add(t *Task, now time.Time, home *time.Location) error {
	added, err := s.insert(t, now, home)
	if err != nil {
		return err
	}
	if !added {
		return fmt.Errorf("%w: %s (remove it first, or pick another --name)", ErrExists, t.Name)
	}
	return nil
}

// insert stores t unless its name is taken; a taken name leaves the stored
// task as it is, which is what keeps a user's edits of a built-in task.
func (s *Store) insert(t *Task, now time.Time, home *time.Location) (bool, error) {
	if err := t.Validate(home); err != nil {
		return false, err
	}
	next, err := t.firstRun(now, home)
	if err != nil {
		return false, err
	}
	res, err := s.db.Exec(`INSERT INTO tasks (`+taskColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, NULL, '', '', ?, ?)
		ON CONFLICT (name) DO NOTHING`,
		t.Name, t.Kind, t.Prompt, t.Schedule, t.Timezone, t.Priority, t.RequireIdle,
		int64(t.MissWindow/time.Second), toUnix(next), now.Unix(), now.Unix())
	if err != nil {
		return false, fmt.Errorf("add task %s: %w", t.Name, s.failed(err))
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Get returns one task.
func (s *Store) Get(name string) (*Task, error) {
	t, err := scanTask(s.db.QueryRow(`SELECT `+taskColumns+` FROM tasks WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if err != nil {
		return nil, fmt.Errorf("read task %s: %w", name, err)
	}
	return t, nil
}

// List returns every task by name.
func (s *Store) List() ([]*Task, error) {
	rows, err := s.db.Query(`SELECT ` + taskColumns + ` FROM tasks ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	defer rows.Close()
	var tasks []*Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("list tasks: %w", err)
		}
		tasks = append(tasks, t)
	}
	return tasks, rows.Err()
}

// Remove deletes a task; its run history stays.
func (s *Store) Remove(name string) error {
	return s.mustChange(name, `DELETE FROM tasks WHERE name = ?`, name)
}

// SetEnabled pauses or resumes a task. Resuming restarts the schedule from
// now, so the slots skipped while paused do not count as missed.
func (s *Store) SetEnabled(name string, enabled bool, now time.Time, home *time.Location) error {
	if !enabled {
		return s.mustChange(name, `UPDATE tasks SET enabled = 0, updated = ? WHERE name = ?`, now.Unix(), name)
	}
	t, err := s.Get(name)
	if err != nil {
		return err
	}
	next, err := t.firstRun(now, home)
	if err != nil {
		return err
	}
	return s.mustChange(name, `UPDATE tasks SET enabled = 1, next_run = ?, updated = ? WHERE name = ?`,
		toUnix(next), now.Unix(), name)
}

func (s *Store) mustChange(name, query string, args ...any) error {
	res, err := s.db.Exec(query, args...)
	if err != nil {
		return fmt.Errorf("update task %s: %w", name, s.failed(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	return nil
}

// UniqueName returns base, or base-2, base-3, ... whichever is free.
func (s *Store) UniqueName(base string) (string, error) {
	name := base
	for i := 2; ; i++ {
		var n int
		if err := s.db.QueryRow(`SELECT count(*) FROM tasks WHERE name = ?`, name).Scan(&n); err != nil {
			return "", fmt.Errorf("check task name: %w", err)
		}
		if n == 0 {
			return name, nil
		}
		name = fmt.Sprintf("%s-%d", strings.TrimSuffix(base, "-"), i)
	}
}
