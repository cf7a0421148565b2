package integration

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestSchedulerKilledAroundQueueing kills the daemon with SIGKILL right
// before and right after it writes a slot's C4 message, then restarts it:
// whatever the moment, the slot has exactly one C4 message and one
// finished run. The agent may have taken the message meanwhile, and an
// earlier slot's identical message may be pending: neither may make the
// retry queue a copy or skip its own message.
func TestSchedulerKilledAroundQueueing(t *testing.T) {
	const content = "[Scheduled Task: once] hello"
	tests := []struct {
		name, point   string
		earlier       bool // an earlier slot's identical message is pending
		delivered     bool // the agent takes the message before the restart
		wantMessages  int
		wantRunDetail string
	}{
		{"after queueing, delivered", "scheduler-after-queue", false, true, 1, "before an interruption"},
		{"after queueing, pending", "scheduler-after-queue", false, false, 1, "before an interruption"},
		{"before queueing, earlier slot pending", "scheduler-before-queue", true, false, 2, "(priority 2)"},
		{"before queueing", "scheduler-before-queue", false, false, 1, "(priority 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, c4db := c4Home(t, nil, "")
			db := rawDB(t, c4db)
			defer db.Close()
			if tt.earlier {
				mustExec(t, db, `INSERT INTO conversations (direction, channel, content, status, priority)
					VALUES ('in', 'system', ?, 'pending', 2)`, content)
			}
			r := testutil.Run{ZylosDir: dir, Env: realClock}
			if res := r.Exec(t, "scheduler", "add", "hello", "--in", "1s", "--priority", "2", "--name", "once"); res.Code != 0 {
				t.Fatalf("add: %d %s", res.Code, res.Stderr)
			}

			d := startDaemonEnv(t, dir, []string{crashpoint.Env + "=" + tt.point})
			done := make(chan error, 1)
			go func() { done <- d.cmd.Wait() }()
			select {
			case err := <-done:
				if ws, ok := d.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
					t.Fatalf("daemon ended with %v, want killed at %s\n%s", err, tt.point, d.logText())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("daemon never reached %s\n%s", tt.point, d.logText())
			}
			if tt.delivered {
				mustExec(t, db, `UPDATE conversations SET status = 'delivered' WHERE content = ?`, content)
			}

			d = startDaemon(t, dir)
			d.waitLog(t, `msg="task ran" task=once`)
			if code := d.stop(t, syscall.SIGTERM); code != 0 {
				t.Fatalf("restart: exit %d\n%s", code, d.logText())
			}
			var messages int
			if err := db.QueryRow(`SELECT count(*) FROM conversations WHERE content = ?`, content).Scan(&messages); err != nil {
				t.Fatal(err)
			}
			if messages != tt.wantMessages {
				t.Errorf("%d C4 messages, want %d (one for the slot)\n%s", messages, tt.wantMessages, d.logText())
			}
			runs := testutil.Run{ZylosDir: dir}.Exec(t, "scheduler", "history", "once")
			if lines := strings.Split(strings.TrimSpace(runs.Stdout), "\n"); len(lines) != 2 ||
				!strings.Contains(lines[1], " ok ") || !strings.Contains(lines[1], tt.wantRunDetail) {
				t.Errorf("history, want one ok run saying %q:\n%s", tt.wantRunDetail, runs.Stdout)
			}
		})
	}
}
