package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestGitSnapshotTask: init --git-snapshots registers the daily snapshot;
// with the journal on, every change is committed already and a run finds
// nothing; with it off, a run commits memory/ only, as zylos's daily
// commit; a run without git is skipped, never a failure.
func TestGitSnapshotTask(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	dir := filepath.Join(t.TempDir(), "zylos")
	r := testutil.Run{ZylosDir: dir, Env: []string{"ZYLOS_MEMORY_NOW="}}
	if res := r.Exec(t, "init", "--layout", "v07"); strings.Contains(res.Stdout, "snapshot") {
		t.Errorf("registered without --git-snapshots:\n%s", res.Stdout)
	}
	res := r.Exec(t, "init", "--git-snapshots")
	if res.Code != 0 || res.Stdout != "memory already initialised: nothing changed (9 files kept)\nregistered scheduled task memory-git-snapshot-daily\nhooks already registered in .claude/settings.local.json\nMCP server already registered in .mcp.json\n" {
		t.Fatalf("init --git-snapshots: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	res = r.Exec(t, "scheduler", "trigger", "memory-git-snapshot-daily")
	if res.Code != 0 || !strings.Contains(res.Stdout, ": skipped (trigger: No memory changes to commit.)") {
		t.Fatalf("trigger with the journal on: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if res := r.Exec(t, "init", "--journal=false"); !strings.HasSuffix(res.Stdout, "memory journal: off (init --journal=true turns it on)\n") {
		t.Fatalf("init --journal=false: %+v", res)
	}
	os.WriteFile(filepath.Join(dir, "memory", "state.md"), []byte("# Active State\n\nmoved on\n"), 0o644)
	time.Sleep(1100 * time.Millisecond) // the next slot of a trigger
	res = r.Exec(t, "scheduler", "trigger", "memory-git-snapshot-daily")
	if res.Code != 0 || !strings.Contains(res.Stdout, ": ok (trigger: memory: daily snapshot ") {
		t.Fatalf("trigger: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	files, err := exec.Command("git", "-C", filepath.Join(dir, "memory"), "ls-files").Output()
	if err != nil || strings.Contains(string(files), ".state") || !strings.Contains(string(files), "identity.md\n") {
		t.Errorf("committed: %s (%v)", files, err)
	}
	time.Sleep(1100 * time.Millisecond) // the next slot of a trigger
	r.Env = append(r.Env, "PATH="+t.TempDir())
	res = r.Exec(t, "scheduler", "trigger", "memory-git-snapshot-daily")
	if res.Code != 0 || !strings.Contains(res.Stdout, ": skipped (trigger: git not found)") {
		t.Errorf("trigger without git: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}
