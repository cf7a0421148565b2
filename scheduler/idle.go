package scheduler

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// StatusFiles are the agent status files, newest convention first: the
// activity monitor's under ZYLOS_DIR, then the older ~/.claude-status.
func StatusFiles(l tiers.Layout, home string) []string {
	return []string{
		filepath.Join(l.ZylosDir, "activity-monitor", "agent-status.json"),
		filepath.Join(home, ".claude-status"),
	}
}

// AgentIdle reads the first agent status file that exists. No file counts
// as idle (there is no agent to disturb) and so does an unreadable one, so
// a broken monitor cannot stall housekeeping forever; note says why.
func AgentIdle(files []string) (idle bool, note string) {
	for _, f := range files {
		data, err := regfile.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return true, fmt.Sprintf("agent status %s unreadable, assuming idle: %v", f, err)
		}
		var st struct {
			State string `json:"state"`
		}
		if err := json.Unmarshal(data, &st); err != nil {
			return true, fmt.Sprintf("agent status %s is not JSON, assuming idle: %v", f, err)
		}
		return st.State == "idle", ""
	}
	return true, "no agent status file, assuming idle"
}
