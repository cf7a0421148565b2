package journal

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// ErrSnapshotSkipped marks a daily snapshot that was not taken for a
// reason that is not a failure: no git, nothing changed, or a repository
// in the middle of something (a merge, a rebase, another git's lock).
var ErrSnapshotSkipped = errors.New("snapshot skipped")

// noSnapshotChanges is zylos's own words for a day without changes, which
// the scheduler shows as the skip's reason.
const noSnapshotChanges = "No memory changes to commit."

// snapshotTimeout bounds a daily snapshot.
const snapshotTimeout = time.Minute

// Snapshot is zylos-core v0.7.1's daily commit (daily-commit.js) on the
// journal's repository: what changed since the last commit, as `memory:
// daily snapshot YYYY-MM-DD`. With the journal on, every change is
// committed as it happens and a snapshot finds nothing; with it off
// (init --journal=false), it is the home's only history, as in zylos.
// now must be in the home's timezone.
func (j *Journal) Snapshot(now time.Time) (string, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", fmt.Errorf("%w: git not found", ErrSnapshotSkipped)
	}
	ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
	defer cancel()
	// As zylos's own daily commit, it waits for any git at work.
	if err := j.busyLocks(); err != nil {
		return "", fmt.Errorf("%w: %v; no snapshot this time", ErrSnapshotSkipped, err)
	}
	c := Change{Source: FromScheduler, Command: "memory-git-snapshot-daily", Label: "memory", Summary: "daily snapshot " + now.Format("2006-01-02")}
	res, err := j.commitLocked(ctx, c, selection{}, nil)
	j.report(err)
	switch {
	case errors.Is(err, ErrBusy):
		return "", fmt.Errorf("%w: %v; no snapshot this time", ErrSnapshotSkipped, err)
	case err != nil:
		return "", fmt.Errorf("snapshot: %w", err)
	case res == nil:
		return "", fmt.Errorf("%w: %s", ErrSnapshotSkipped, noSnapshotChanges)
	}
	return fmt.Sprintf("memory: %s (%s)", c.Summary, short(res.Rev)), nil
}
