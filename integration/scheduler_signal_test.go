package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// rotationTask is the built-in task the signal tests keep busy.
const rotationTask = "session-rotation-daily"

// exitWatch waits for a daemon's exit in the background, so a test can
// tell a daemon that still runs from one that has exited.
type exitWatch struct {
	done chan struct{}
	code int
}

func watchExit(t *testing.T, d *daemon) *exitWatch {
	w := &exitWatch{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		d.cmd.Wait()
		w.code = d.cmd.ProcessState.ExitCode() // -1 when a signal killed it
	}()
	// Runs before startDaemon's cleanup, which then finds the process reaped.
	t.Cleanup(func() { d.cmd.Process.Kill(); <-w.done })
	return w
}

// exited reports whether the daemon exits within d, and its exit code.
func (w *exitWatch) exited(d time.Duration) (bool, int) {
	select {
	case <-w.done:
		return true, w.code
	case <-time.After(d):
		return false, 0
	}
}

// holdRotationLock takes the lock `rotate` takes, as a rotation running
// from the session-start hook would: the daemon's rotation run blocks on
// it until release.
func holdRotationLock(t *testing.T, dir string) (release func()) {
	t.Helper()
	path := filepath.Join(dir, "memory", ".state", "locks", "rotate.lock")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return func() { f.Close() }
}

// runRow is what the signal tests read of a run.
type runRow struct {
	ID             int64
	Status, Detail string
}

// rotationRuns is the run history of the rotation task, read through the
// CLI as a user would.
func rotationRuns(t *testing.T, dir string) []runRow {
	t.Helper()
	res := testutil.Run{ZylosDir: dir}.Exec(t, "scheduler", "history", rotationTask, "--json")
	if res.Code != 0 {
		t.Fatalf("history: exit %d: %s", res.Code, res.Stderr)
	}
	var runs []runRow
	if err := json.Unmarshal([]byte(res.Stdout), &runs); err != nil {
		t.Fatalf("history JSON: %v\n%s", err, res.Stdout)
	}
	return runs
}

// busyRotationDaemon is a daemon stopping after SIGTERM while its
// rotation run waits for the rotation lock the test holds.
func busyRotationDaemon(t *testing.T) (dir string, d *daemon, w *exitWatch, release func()) {
	t.Helper()
	dir, _ = c4Home(t, nil, "")
	// Registered two days ago, the rotation's first slot has passed; it
	// always catches up, so the daemon runs it at once.
	r := testutil.Run{ZylosDir: dir, Env: []string{"ZYLOS_MEMORY_NOW=" + time.Now().Add(-48*time.Hour).UTC().Format(time.RFC3339)}}
	for _, args := range [][]string{
		{"init"},
		{"scheduler", "pause", "memory-sync-periodic"},
		{"scheduler", "pause", "memory-consolidation-weekly"},
	} {
		if res := r.Exec(t, args...); res.Code != 0 {
			t.Fatalf("%v: exit %d: %s", args, res.Code, res.Stderr)
		}
	}
	release = holdRotationLock(t, dir)
	d = startDaemon(t, dir)
	w = watchExit(t, d)
	d.waitLog(t, `msg="slot claimed" task=`+rotationTask)
	if runs := rotationRuns(t, dir); len(runs) != 1 || runs[0].Status != "running" {
		t.Fatalf("runs before the signal: %+v, want one running", runs)
	}

	d.cmd.Process.Signal(syscall.SIGTERM)
	d.waitLog(t, "msg=stopping signal=terminated")
	if gone, code := w.exited(200 * time.Millisecond); gone {
		t.Fatalf("exited %d after one SIGTERM with a run in progress:\n%s", code, d.logText())
	}
	return dir, d, w, release
}

// The first SIGTERM lets the run in progress finish, then stops cleanly.
func TestSchedulerFirstSignalFinishesTheRun(t *testing.T) {
	dir, d, w, release := busyRotationDaemon(t)
	release()
	if gone, code := w.exited(10 * time.Second); !gone || code != 0 {
		t.Fatalf("after the run: exited %v, code %d; want 0\n%s", gone, code, d.logText())
	}
	if log := d.logText(); !strings.Contains(log, `msg="task ran" task=`+rotationTask) ||
		!strings.Contains(log, `msg="scheduler stopped"`) {
		t.Errorf("log lacks the finished run or the clean stop:\n%s", log)
	}
	runs := rotationRuns(t, dir)
	if len(runs) != 1 || runs[0].Status != "ok" || !strings.Contains(runs[0].Detail, "Rotated: current.md") {
		t.Errorf("runs: %+v, want one ok rotation", runs)
	}
}

// A second SIGTERM exits at once with status 1. The interrupted run stays
// `running`, as after a crash, and the next start retries it once.
func TestSchedulerSecondSignalAborts(t *testing.T) {
	dir, d, w, release := busyRotationDaemon(t)
	d.cmd.Process.Signal(syscall.SIGTERM)
	if gone, code := w.exited(5 * time.Second); !gone || code != 1 {
		t.Fatalf("after a second SIGTERM: exited %v, code %d; want 1\n%s", gone, code, d.logText())
	}
	if log := d.logText(); !strings.Contains(log, `msg="second signal, exiting now" signal=terminated`) ||
		strings.Contains(log, `msg="task ran"`) {
		t.Errorf("log of the abort:\n%s", log)
	}
	runs := rotationRuns(t, dir)
	if len(runs) != 1 || runs[0].Status != "running" {
		t.Fatalf("runs after the abort: %+v, want the one run left running", runs)
	}
	interrupted := runs[0].ID

	release()
	d = startDaemon(t, dir)
	d.waitLog(t, `msg="scheduler ready"`)
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("restart: exit %d\n%s", code, d.logText())
	}
	runs = rotationRuns(t, dir)
	if len(runs) != 1 || runs[0].ID != interrupted || runs[0].Status != "ok" {
		t.Errorf("runs after the restart: %+v, want run %d retried to ok", runs, interrupted)
	}
}
