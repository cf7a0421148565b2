package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// crashHome holds 60 old session logs and 300 decisions, two thirds of
// them stale, so that an apply takes long enough to be killed midway.
func crashHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "zylos")
	mem := filepath.Join(home, "memory")
	for _, d := range []string{"sessions", "reference"} {
		if err := os.MkdirAll(filepath.Join(mem, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	first := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 60; i++ {
		day := first.AddDate(0, 0, i).Format("2006-01-02")
		os.WriteFile(filepath.Join(mem, "sessions", day+".md"), []byte("# Session Log: "+day+"\n"), 0o644)
	}
	var d strings.Builder
	d.WriteString("# Decisions Log\n\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&d, "### [%s] Decision %03d\n- **Decision:** x\n- **Status:** %s\n\n",
			first.AddDate(0, 0, i).Format("2006-01-02"), i, []string{"archived", "active", "superseded"}[i%3])
	}
	os.WriteFile(filepath.Join(mem, "reference", "decisions.md"), []byte(d.String()), 0o644)
	return home
}

// TestConsolidateApplyKilled kills apply with SIGKILL at different moments
// (a whole run takes about 200 ms here, most of it fsyncs, so the delays
// land before, during and after the session moves and the rewrites),
// reruns it to completion, and checks that every decision and session log
// exists exactly once outside the backups.
func TestConsolidateApplyKilled(t *testing.T) {
	for _, delay := range []time.Duration{30, 60, 90, 120, 150, 200, 300} {
		t.Run(fmt.Sprint(delay*time.Millisecond), func(t *testing.T) {
			home := crashHome(t)
			cmd := exec.Command(testutil.Binary(t), "--zylos-dir", home, "consolidate", "--apply")
			cmd.Env = append(os.Environ(), "TZ=UTC", "ZYLOS_MEMORY_NOW=2026-03-15T10:30:00Z")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay * time.Millisecond)
			cmd.Process.Kill()
			cmd.Wait()
			if res := (testutil.Run{ZylosDir: home}).Exec(t, "consolidate", "--apply"); res.Code != 0 {
				t.Fatalf("rerun after kill: %s", resultText(res))
			}
			checkEachOnce(t, filepath.Join(home, "memory"))
		})
	}
}

func checkEachOnce(t *testing.T, mem string) {
	t.Helper()
	var text strings.Builder
	for _, pattern := range []string{"reference/*.md", "archive/*.md", "sessions/*.md"} {
		files, _ := filepath.Glob(filepath.Join(mem, pattern))
		for _, f := range files {
			data, _ := os.ReadFile(f)
			text.Write(data)
		}
	}
	all := text.String()
	for i := 0; i < 300; i++ {
		if n := strings.Count(all, fmt.Sprintf("] Decision %03d\n", i)); n != 1 {
			t.Errorf("Decision %03d found %d times", i, n)
		}
	}
	first := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 60; i++ {
		day := first.AddDate(0, 0, i).Format("2006-01-02")
		if n := strings.Count(all, "# Session Log: "+day+"\n"); n != 1 {
			t.Errorf("session %s found %d times", day, n)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(mem, "sessions", "2025-*.md")); len(left) > 0 {
		t.Errorf("old sessions left after a completed run: %v", left)
	}
}
