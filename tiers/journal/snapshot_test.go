package journal

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/tiers"
)

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestSnapshot commits memory/ into its own repository, never .state/ nor
// anything outside memory/, and skips (never fails) when nothing changed,
// the repository is busy or git is missing.
func TestSnapshot(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	l := tiers.Layout{ZylosDir: filepath.Join(t.TempDir(), "zylos")}
	for rel, content := range map[string]string{
		"memory/identity.md": "# Identity\n", "memory/sessions/current.md": "# Session Log: 2026-03-15\n\n",
		"memory/.state/scheduler.db": "state", "outside.txt": "not memory",
	} {
		p := filepath.Join(l.ZylosDir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	// A repository above the home must not receive the snapshot.
	gitOut(t, l.ZylosDir, "init", "-q")
	t.Setenv("GIT_DIR", filepath.Join(l.ZylosDir, ".git"))
	now := time.Date(2026, 3, 15, 23, 50, 0, 0, time.UTC)
	j := Open(l)
	msg, err := j.Snapshot(now)
	if err != nil || !strings.HasPrefix(msg, "memory: daily snapshot 2026-03-15 (") {
		t.Fatalf("first snapshot: %q %v", msg, err)
	}
	os.Unsetenv("GIT_DIR")
	files := gitOut(t, l.MemoryDir(), "ls-files")
	if files != "identity.md\nsessions/current.md\n" {
		t.Errorf("committed files:\n%s", files)
	}
	if out, err := exec.Command("git", "-C", l.ZylosDir, "rev-parse", "--verify", "-q", "HEAD").Output(); err == nil {
		t.Errorf("the repository above memory/ got a commit: %s", out)
	}
	if _, err := j.Snapshot(now); !errors.Is(err, ErrSnapshotSkipped) || !strings.Contains(err.Error(), "No memory changes") {
		t.Errorf("unchanged: %v", err)
	}
	os.WriteFile(filepath.Join(l.MemoryDir(), "state.md"), []byte("# Active State\n"), 0o644)
	lock := filepath.Join(l.MemoryDir(), ".git", "index.lock")
	os.WriteFile(lock, nil, 0o644)
	if _, err := j.Snapshot(now); !errors.Is(err, ErrSnapshotSkipped) || !strings.Contains(err.Error(), "busy (index.lock held by another program)") {
		t.Errorf("busy repository: %v", err)
	}
	os.Remove(lock)
	path := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir())
	if _, err := j.Snapshot(now); !errors.Is(err, ErrSnapshotSkipped) || !strings.Contains(err.Error(), "git not found") {
		t.Errorf("without git: %v", err)
	}
	os.Setenv("PATH", path)
	if n := strings.Count(gitOut(t, l.MemoryDir(), "log", "--oneline"), "\n"); n != 1 {
		t.Errorf("%d commits, want 1", n)
	}
}
