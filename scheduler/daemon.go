package scheduler

import (
	"context"
	"log/slog"
	"time"

	"github.com/zylos/zylos-memory/tiers"
)

// DefaultPoll is how often the sleeping daemon re-reads its tasks (to see
// edits made by the CLI) and re-checks idle for waiting runs. Slots
// themselves are met by a timer set to the next one, not by polling.
const DefaultPoll = 5 * time.Second

// Daemon runs due tasks until its context ends.
type Daemon struct {
	Store  *Store
	Runner *Runner
	Now    func() time.Time
	Log    *slog.Logger
	Poll   time.Duration
	// StatusFiles are the agent status files consulted for idle.
	StatusFiles []string
	// Wake, when it receives, makes the daemon re-read its tasks at once
	// (SIGHUP).
	Wake <-chan struct{}
	// Ticked, if set, receives after each pass over the tasks (tests and
	// benchmarks measure start-up to first tick with it).
	Ticked chan<- time.Time
}

// NewDaemon builds a daemon for a home with the default settings.
func NewDaemon(l tiers.Layout, s *Store, now func() time.Time, log *slog.Logger, homeDir string) (*Daemon, error) {
	loc, err := l.Location()
	if err != nil {
		return nil, err
	}
	return &Daemon{
		Store:       s,
		Runner:      &Runner{Layout: l, Home: loc},
		Now:         now,
		Log:         log,
		Poll:        DefaultPoll,
		StatusFiles: StatusFiles(l, homeDir),
	}, nil
}

// Run resumes runs a crash interrupted, then sleeps until each next slot
// and runs it. It returns nil when ctx ends; the run in progress finishes
// first, and every state change is one SQLite transaction, so a stop at
// any point leaves consistent state.
func (d *Daemon) Run(ctx context.Context) error {
	d.Log.Info("scheduler started", "tasks_db", d.Store.path)
	defer d.Runner.Close()
	if err := d.resume(ctx, true); err != nil {
		return err
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for first := true; ; first = false {
		select {
		case <-ctx.Done():
			d.Log.Info("scheduler stopped")
			return nil
		case <-timer.C:
		case <-d.Wake:
			d.Log.Info("reloading tasks")
		}
		wake, err := d.tick(ctx)
		if err != nil {
			return err
		}
		if first {
			d.Log.Info("scheduler ready", "next_wake", wake)
		}
		if d.Ticked != nil {
			d.Ticked <- d.Now()
		}
		timer.Reset(wake)
	}
}

// tick runs every unfinished and due run and returns how long to sleep.
func (d *Daemon) tick(ctx context.Context) (time.Duration, error) {
	if err := d.resume(ctx, false); err != nil {
		return 0, err
	}
	tasks, err := d.Store.List()
	if err != nil {
		return 0, err
	}
	now := d.Now()
	sleep := d.Poll
	for _, t := range tasks {
		if !t.Enabled || t.NextRun.IsZero() {
			continue
		}
		if t.NextRun.After(now) {
			sleep = min(sleep, t.NextRun.Sub(now))
			continue
		}
		if ctx.Err() != nil {
			break
		}
		if err := d.due(t, now); err != nil {
			return 0, err
		}
		sleep = 0 // the task's next slot may already be close: re-plan now
	}
	return max(sleep, 0), nil
}
