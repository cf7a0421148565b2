package scheduler

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kinds of task.
const (
	KindBuiltin = "builtin"
	KindUser    = "user"
)

// AlwaysCatchUp as a miss window means a missed slot always runs once at
// start-up, however late (rotation is idempotent, so late is fine).
const AlwaysCatchUp = -1 * time.Second

// DefaultMissWindow is how late a missed slot may still run at start-up.
const DefaultMissWindow = 5 * time.Minute

// ErrNotFound is returned for a task name that does not exist.
var ErrNotFound = errors.New("no such task")

// Task is one scheduled task as stored.
type Task struct {
	Name        string        `json:"name"`
	Kind        string        `json:"kind"`
	Prompt      string        `json:"prompt,omitempty"`
	Schedule    string        `json:"schedule"`
	Timezone    string        `json:"timezone,omitempty"`
	Priority    int           `json:"priority"`
	RequireIdle bool          `json:"require_idle"`
	Enabled     bool          `json:"enabled"`
	MissWindow  time.Duration `json:"-"`
	NextRun     time.Time     `json:"next_run,omitzero"`
	LastRun     time.Time     `json:"last_run,omitzero"`
	LastStatus  string        `json:"last_status,omitempty"`
	LastError   string        `json:"last_error,omitempty"`
	Created     time.Time     `json:"created"`
	Updated     time.Time     `json:"updated"`
}

// Location is the timezone the task's slots are computed in: its own, or
// home when it has none.
func (t *Task) Location(home *time.Location) (*time.Location, error) {
	if t.Timezone == "" {
		return home, nil
	}
	loc, err := time.LoadLocation(t.Timezone)
	if err != nil {
		return nil, fmt.Errorf("timezone %q: %w", t.Timezone, err)
	}
	return loc, nil
}

// Validate checks what the DB constraints do not: the schedule parses in
// the timezone, and the priority is in range.
func (t *Task) Validate(home *time.Location) error {
	if t.Name == "" || strings.ContainsAny(t.Name, " \t\r\n") {
		return fmt.Errorf("task name %q: must be non-empty without spaces", t.Name)
	}
	if t.Priority < 1 || t.Priority > 3 {
		return fmt.Errorf("priority %d: must be 1, 2 or 3", t.Priority)
	}
	loc, err := t.Location(home)
	if err != nil {
		return err
	}
	_, err = ParseSchedule(t.Schedule, loc)
	return err
}

// firstRun is the first slot of a new task after now.
func (t *Task) firstRun(now time.Time, home *time.Location) (time.Time, error) {
	loc, err := t.Location(home)
	if err != nil {
		return time.Time{}, err
	}
	s, err := ParseSchedule(t.Schedule, loc)
	if err != nil {
		return time.Time{}, err
	}
	return s.Next(now), nil
}

const taskColumns = `name, kind, prompt, schedule, timezone, priority, require_idle, enabled,
	miss_window, next_run, last_run, last_status, last_error, created, updated`

func scanTask(row interface{ Scan(...any) error }) (*Task, error) {
	var t Task
	var missWindow, created, updated int64
	var next, last sql.NullInt64
	err := row.Scan(&t.Name, &t.Kind, &t.Prompt, &t.Schedule, &t.Timezone, &t.Priority,
		&t.RequireIdle, &t.Enabled, &missWindow, &next, &last, &t.LastStatus, &t.LastError,
		&created, &updated)
	if err != nil {
		return nil, err
	}
	t.MissWindow = time.Duration(missWindow) * time.Second
	t.NextRun = fromUnix(next)
	t.LastRun = fromUnix(last)
	t.Created = time.Unix(created, 0).UTC()
	t.Updated = time.Unix(updated, 0).UTC()
	return &t, nil
}

func fromUnix(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.Unix(v.Int64, 0).UTC()
}

func toUnix(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.Unix(), Valid: true}
}
