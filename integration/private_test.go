package integration

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// openToOthers lists what of the home's memory a user other than its
// owner could read: a path whose group or other bits allow it, reached
// through directories they may enter.
func openToOthers(t *testing.T, zylos string) []string {
	t.Helper()
	var open []string
	for _, root := range []string{filepath.Join(zylos, "memory"), filepath.Join(zylos, "comm-bridge")} {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			if info.IsDir() && info.Mode().Perm()&0o005 == 0 {
				return filepath.SkipDir // others may not enter: what it holds is closed
			}
			if info.Mode().Perm()&0o004 != 0 {
				open = append(open, strings.TrimPrefix(p, zylos+"/"))
			}
			return nil
		})
	}
	return open
}

// TestTheHomeIsPrivate: under umask 022, init leaves the memory, the
// journal and the C4 database closed to other users; doctor warns of a
// home opened since, init repairs it, and a home shared on purpose keeps
// its modes.
func TestTheHomeIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022) // the binary inherits it
	defer syscall.Umask(old)
	zylos := hookHome(t, 5)
	run := testutil.Run{ZylosDir: zylos}
	testutil.WriteFile(t, filepath.Join(zylos, "memory", "core.md"), "# Core\n\nthe secret plan\n")
	run.Exec(t, "init") // a second init: the journal and its first commits exist
	if open := openToOthers(t, zylos); len(open) > 0 {
		t.Errorf("readable by others after init: %v", open)
	}
	for _, p := range []string{"memory/core.md", "comm-bridge/c4.db"} {
		if st, err := os.Stat(filepath.Join(zylos, p)); err != nil || st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: %v %v, want no access for group and others", p, st.Mode(), err)
		}
	}
	if res := run.Exec(t, "doctor"); !strings.Contains(res.Stdout, "ok    private: memory/ and comm-bridge/ closed to group and others") {
		t.Errorf("doctor on a private home:\n%s", res.Stdout)
	}

	// Opened since (a chmod, a copy), it is warned of and repaired.
	os.Chmod(filepath.Join(zylos, "memory"), 0o755)
	os.Chmod(filepath.Join(zylos, "memory", "core.md"), 0o644)
	if res := run.Exec(t, "doctor"); !strings.Contains(res.Stdout, "warn  private: memory/ (0755) open to group or others (run: zylos-memory init") {
		t.Errorf("doctor on an open home:\n%s", res.Stdout)
	}
	if res := run.Exec(t, "init"); !strings.Contains(res.Stdout, "made the home private: memory/ (0755) and all it holds closed to group and others\n") {
		t.Errorf("init on an open home:\n%s", res.Stdout)
	}
	if open := openToOthers(t, zylos); len(open) > 0 {
		t.Errorf("readable by others after the repair: %v", open)
	}

	// Shared on purpose: init keeps the modes, doctor says so.
	testutil.WriteFile(t, filepath.Join(zylos, ".env"), "ZYLOS_MEMORY_SHARED=1\n")
	os.Chmod(filepath.Join(zylos, "memory"), 0o755)
	if res := run.Exec(t, "init"); !strings.Contains(res.Stdout, "home shared on purpose (ZYLOS_MEMORY_SHARED in .env): modes kept") {
		t.Errorf("init of a shared home:\n%s", res.Stdout)
	}
	if st, _ := os.Stat(filepath.Join(zylos, "memory")); st.Mode().Perm() != 0o755 {
		t.Errorf("a shared home's memory/ is %v", st.Mode())
	}
	if res := run.Exec(t, "doctor"); !strings.Contains(res.Stdout, "ok    private: the home is shared on purpose") {
		t.Errorf("doctor on a shared home:\n%s", res.Stdout)
	}
}
