package triage

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/hookstate"
)

// flagTTL is how long a block keeps the next stop from being blocked again,
// for a client that does not say stop_hook_active: after a block the agent
// saves and stops, and that stop must go through.
const flagTTL = 5 * time.Minute

// flagName is the stop flag in a session's state directory: the time of the
// last block, in Unix seconds.
const flagName = "stop-blocked"

// StopFlag is the stop flag of the session whose state directory is dir.
func StopFlag(dir string) string { return filepath.Join(dir, flagName) }

// consumeFreshFlag reports whether a flag younger than flagTTL exists in the
// session's state directory. A flag of any age is removed: a fresh one has
// done its job, a stale one must not outlive its session.
func consumeFreshFlag(dir string, now time.Time) bool {
	at, ok := hookstate.ReadInt(dir, flagName)
	if !ok {
		return false
	}
	_ = hookstate.Remove(dir, flagName)
	age := now.Sub(time.Unix(at, 0))
	return age >= 0 && age < flagTTL
}

func writeFlag(dir string, now time.Time) error {
	return hookstate.WriteInt(dir, flagName, now.Unix())
}

// clearBlock removes what a block left in the session's state directory:
// the flag and the context files the agent has read by now. Best effort;
// whatever stays goes with the session's directory.
func clearBlock(dir string) {
	_ = hookstate.Remove(dir, flagName)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if name := e.Name(); strings.HasPrefix(name, contextPrefix) && strings.HasSuffix(name, contextSuffix) {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
}
