package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// runCLI runs the command line in-process on the home dir.
func runCLI(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(newApp(strings.NewReader(""), &out, &errOut), append([]string{"zylos-memory", "--zylos-dir", dir}, args...))
	return out.String(), errOut.String(), code
}

// readCommands are the scheduler commands that only read, each with the
// golden file of its output on the home schedulerHome builds.
var readCommands = []struct {
	args   []string
	golden string
}{
	{[]string{"scheduler", "list"}, "list"},
	{[]string{"scheduler", "list", "--json"}, "list-json"},
	{[]string{"scheduler", "history"}, "history"},
	{[]string{"scheduler", "history", "ping", "--limit", "1"}, "history-ping"},
	{[]string{"scheduler", "history", "--json"}, "history-json"},
	{[]string{"scheduler", "history", "nothing"}, "history-unknown"},
	{[]string{"status"}, "status"},
}

// schedulerHome is a home with two tasks, one paused, and one run.
func schedulerHome(t *testing.T) string {
	t.Helper()
	t.Setenv("TZ", "UTC")
	t.Setenv("ZYLOS_MEMORY_NOW", "2026-03-15T10:30:00Z")
	dir := filepath.Join(t.TempDir(), "zylos")
	for _, args := range [][]string{
		{"c4", "init"},
		{"scheduler", "add", "stand-up notes", "--cron", "0 9 * * 1-5", "--name", "standup", "--timezone", "Europe/Berlin"},
		{"scheduler", "add", "ping", "--every", "30m", "--priority", "1", "--require-idle", "--name", "ping"},
		{"scheduler", "pause", "standup"},
		{"scheduler", "trigger", "ping"},
	} {
		if _, stderr, code := runCLI(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	return dir
}

// schedulerSection is the part of `status` the scheduler prints; the rest
// belongs to the memory tiers.
func schedulerSection(args []string, stdout string) string {
	if args[0] != "status" {
		return stdout
	}
	if i := strings.Index(stdout, "\nScheduler:"); i >= 0 {
		return stdout[i:]
	}
	return ""
}

// The read commands print what they always printed and leave every byte
// of the home as it was: no -wal or -shm file beside the state DB.
func TestSchedulerReadCommandsOnStateDB(t *testing.T) {
	dir := schedulerHome(t)
	before := testutil.Tree(t, dir)
	for _, rc := range readCommands {
		t.Run(rc.golden, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, dir, rc.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			testutil.Golden(t, filepath.Join("testdata", "scheduler", rc.golden+".golden"),
				[]byte(schedulerSection(rc.args, stdout)))
			if after := testutil.Tree(t, dir); after != before {
				t.Errorf("the home changed:\n%s", testutil.Diff(before, after))
			}
		})
	}
}

// A home whose scheduler was never set up reads as one without tasks, and
// the read creates nothing.
func TestSchedulerReadCommandsWithoutStateDB(t *testing.T) {
	t.Setenv("TZ", "UTC")
	dir := filepath.Join(t.TempDir(), "zylos")
	if err := os.MkdirAll(filepath.Join(dir, "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"list":            "No scheduled tasks.\n",
		"list-json":       "[]\n",
		"history":         "No runs yet.\n",
		"history-ping":    "No runs yet.\n",
		"history-json":    "[]\n",
		"history-unknown": "No runs yet.\n",
		"status":          "",
	}
	for _, rc := range readCommands {
		t.Run(rc.golden, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, dir, rc.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if got := schedulerSection(rc.args, stdout); got != want[rc.golden] {
				t.Errorf("stdout %q, want %q", got, want[rc.golden])
			}
			if _, err := os.Lstat(filepath.Join(dir, "memory", ".state")); !os.IsNotExist(err) {
				t.Errorf("memory/.state exists after a read (%v)", err)
			}
		})
	}
}
