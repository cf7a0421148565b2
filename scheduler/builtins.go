package scheduler

import (
	"fmt"
	"time"

	"github.com/zylos/zylos-memory/tiers"
)

// Names of the built-in tasks (seed 002 section 8).
const (
	SyncTask          = "memory-sync-periodic"
	RotationTask      = "session-rotation-daily"
	ConsolidationTask = "memory-consolidation-weekly"
)

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
