package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// A state DB that lost its runs table still holds tasks: the read
// commands report the damage (exit 1) instead of "No scheduled tasks.".
func TestSchedulerListReportsMissingTable(t *testing.T) {
	dir, _ := c4Home(t, nil, "")
	r := testutil.Run{ZylosDir: dir}
	for _, args := range [][]string{{"init"}, {"scheduler", "add", "hello", "--every", "1h", "--name", "hello"}} {
		if res := r.Exec(t, args...); res.Code != 0 {
			t.Fatalf("%v: exit %d: %s", args, res.Code, res.Stderr)
		}
	}
	state := rawDB(t, filepath.Join(dir, "memory", ".state", "scheduler.db"))
	mustExec(t, state, `DROP TABLE runs`)
	state.Close()
	want := "scheduler state DB is damaged: " + filepath.Join(dir, "memory", ".state", "scheduler.db") + " has no runs table but has its tasks table"
	for _, args := range [][]string{{"scheduler", "list"}, {"scheduler", "history"}, {"status"}} {
		res := r.Exec(t, args...)
		if res.Code != 1 || !strings.Contains(res.Stderr, want) || strings.Contains(res.Stdout, "No scheduled tasks") {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s\nwant exit 1 and %q", args, res.Code, res.Stdout, res.Stderr, want)
		}
		if n := strings.Count(strings.TrimSpace(res.Stderr), "\n"); n != 0 {
			t.Errorf("%v: error is %d lines", args, n+1)
		}
	}
}
