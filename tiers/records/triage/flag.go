package triage

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// flagTTL is how long a block keeps the next stop from being blocked again:
// after a block the agent saves and stops, and that stop must go through.
const flagTTL = 5 * time.Minute

// StopFlag is the flag file of a working directory.
func StopFlag(cwd string) string {
	return filepath.Join(cwd, ".claude", ".stop_hook_active")
}

// consumeFreshFlag reports whether a flag younger than flagTTL exists, and
// removes a fresh one: it has done its job. The age comes from the
// timestamp inside the flag (so a fixed clock works), else its mtime.
func consumeFreshFlag(path string, now time.Time) bool {
	data, err := regfile.ReadFile(path)
	if err != nil {
		return false
	}
	at := flagTime(path, data)
	if age := now.Sub(at); age < 0 || age >= flagTTL {
		return false // stale: ignored, and overwritten if this stop blocks
	}
	// A flag that cannot be removed still allows this stop; it goes stale
	// on its own.
	_ = os.Remove(path)
	return true
}

func flagTime(path string, data []byte) time.Time {
	if sec, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil {
		return time.Unix(sec, 0)
	}
	if st, err := os.Stat(path); err == nil {
		return st.ModTime()
	}
	return time.Time{}
}

func writeFlag(path string, now time.Time) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, []byte(strconv.FormatInt(now.Unix(), 10)+"\n"), 0o600)
}
