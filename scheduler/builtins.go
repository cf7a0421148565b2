package scheduler

import (
	"fmt"
	"time"

	"github.com/zylos/zylos-memory/tiers"
)

// Names of the built-in tasks (Memory Architecture v2).
const (
	SyncTask          = "memory-sync-periodic"
	RotationTask      = "session-rotation-daily"
	ConsolidationTask = "memory-consolidation-weekly"
	// SnapshotTask is opt-in (init --git-snapshots): zylos v0.7.1's daily
	// commit of the memory directory.
	SnapshotTask = "memory-git-snapshot-daily"
)

// snapshotBuiltin commits memory/ late each evening, so a day's session
// log is in that day's snapshot; a missed one runs at start-up (a commit
// of what changed since is always safe).
func snapshotBuiltin() *Task {
	return &Task{Name: SnapshotTask, Kind: KindBuiltin, Schedule: "50 23 * * *", Priority: 3,
		MissWindow: AlwaysCatchUp, Prompt: "Commit the memory directory to its git repository (daily snapshot)."}
}

// RegisterSnapshotTask adds the opt-in daily git snapshot when it is
// missing, and reports whether it did.
func RegisterSnapshotTask(l tiers.Layout, now time.Time) (bool, error) {
	home, err := l.Location()
	if err != nil {
		return false, err
	}
	s, err := Open(l)
	if err != nil {
		return false, err
	}
	defer s.Close()
	added, err := s.insert(snapshotBuiltin(), now, home)
	if err != nil {
		return false, fmt.Errorf("register %s: %w", SnapshotTask, err)
	}
	return added, nil
}

// Builtins are the memory tasks init registers. The sync runs on even
// hours ("0 */2 * * *") rather than "@every 2h": its slots are then the
// same whenever the daemon starts, so a restart neither skips nor repeats.
func Builtins() []*Task {
	return []*Task{
		{Name: SyncTask, Kind: KindBuiltin, Schedule: "0 */2 * * *", Priority: 1,
			MissWindow: DefaultMissWindow,
			Prompt:     "Queue the memory sync request when C4 has unsummarized conversations."},
		{Name: RotationTask, Kind: KindBuiltin, Schedule: "0 0 * * *", Priority: 2, RequireIdle: true,
			MissWindow: AlwaysCatchUp,
			Prompt:     "Rotate sessions/current.md into its dated file."},
		{Name: ConsolidationTask, Kind: KindBuiltin, Schedule: "0 2 * * 0", Priority: 2, RequireIdle: true,
			MissWindow: DefaultMissWindow,
			Prompt:     "Write the consolidation report; queue a review request if it recommends anything."},
	}
}

// RegisterBuiltins adds the built-in tasks that are missing, by name, and
// leaves existing ones as they are (a user's pause or edit survives init).
func RegisterBuiltins(l tiers.Layout, now time.Time) (added []string, err error) {
	home, err := l.Location()
	if err != nil {
		return nil, err
	}
	s, err := Open(l)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	for _, t := range Builtins() {
		ok, err := s.insert(t, now, home)
		if err != nil {
			return added, fmt.Errorf("register %s: %w", t.Name, err)
		}
		if ok {
			added = append(added, t.Name)
		}
	}
	return added, nil
}
