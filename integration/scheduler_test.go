package integration

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// daemon is a running `scheduler run` of the real binary.
type daemon struct {
	cmd *exec.Cmd
	log string // stderr file
}

// realClock runs the binary on the wall clock: the daemon must see time pass.
var realClock = []string{"ZYLOS_MEMORY_NOW="}

func startDaemon(tb testing.TB, dir string, flags ...string) *daemon {
	tb.Helper()
	return startDaemonEnv(tb, dir, nil, flags...)
}

// startDaemonEnv is startDaemon with env ("KEY=value") added to the
// daemon's environment.
func startDaemonEnv(tb testing.TB, dir string, env []string, flags ...string) *daemon {
	tb.Helper()
	d := &daemon{log: filepath.Join(tb.TempDir(), "daemon.log")}
	logFile, err := os.Create(d.log)
	if err != nil {
		tb.Fatal(err)
	}
	defer logFile.Close()
	d.cmd = exec.Command(testutil.Binary(tb), append([]string{"scheduler", "run"}, flags...)...)
	d.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Dir(dir), "TZ=UTC", "ZYLOS_DIR=" + dir}, env...)
	d.cmd.Stderr = logFile
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(d.shutdown)
	d.waitLog(tb, "scheduler started")
	return d
}

// shutdown stops the daemon as an operator would, and kills it with
// every process it started if it has not stopped in 10 s: nothing of
// it may still write in the home when the test removes it.
func (d *daemon) shutdown() {
	if d.cmd.ProcessState != nil {
		return
	}
	exited := make(chan struct{})
	go func() { d.cmd.Wait(); close(exited) }()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
	}
	syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
	<-exited
}

func (d *daemon) logText() string {
	data, _ := os.ReadFile(d.log)
	return string(data)
}

func (d *daemon) waitLog(tb testing.TB, text string) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(d.logText(), text) {
		if time.Now().After(deadline) {
			tb.Fatalf("daemon log never showed %q:\n%s", text, d.logText())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop sends sig and returns the exit code.
func (d *daemon) stop(tb testing.TB, sig syscall.Signal) int {
	tb.Helper()
	d.cmd.Process.Signal(sig)
	err := d.cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	tb.Fatal(err)
	return -1
}

// tickHome is a home with a C4 DB and a user task due every second.
func tickHome(tb testing.TB) (dir, c4db string) {
	tb.Helper()
	dir, c4db = c4Home(tb, nil, "")
	r := testutil.Run{ZylosDir: dir, Env: realClock}
	res := r.Exec(tb, "scheduler", "add", "tick", "--every", "1s", "--priority", "2", "--name", "tick")
	if res.Code != 0 {
		tb.Fatalf("add: %d %s", res.Code, res.Stderr)
	}
	return dir, c4db
}

// ledger compares the C4 rows the task queued with its run history: every
// queued message belongs to exactly one slot, and no slot is left running.
func ledger(tb testing.TB, dir, c4db string) (messages, slots int) {
	tb.Helper()
	db := rawDB(tb, c4db)
	defer db.Close()
	var badPriority int
	if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE priority != 2 OR channel != 'system')
		FROM conversations WHERE content = '[Scheduled Task: tick] tick'`).Scan(&messages, &badPriority); err != nil {
		tb.Fatal(err)
	}
	if badPriority != 0 {
		tb.Errorf("%d messages with the wrong priority or channel", badPriority)
	}
	state := rawDB(tb, filepath.Join(dir, "memory", ".state", "scheduler.db"))
	defer state.Close()
	var running, queued int
	if err := state.QueryRow(`SELECT count(*) FILTER (WHERE status = 'running'),
		count(*) FILTER (WHERE status = 'ok' OR detail = 'already queued in C4'), count(DISTINCT slot)
		FROM runs WHERE task = 'tick'`).Scan(&running, &queued, &slots); err != nil {
		tb.Fatal(err)
	}
	if running != 0 {
		tb.Errorf("%d runs left running", running)
	}
	if queued != messages {
		tb.Errorf("%d C4 messages for %d queuing runs: duplicated or lost", messages, queued)
	}
	return messages, slots
}

func TestSchedulerDaemonFiresOncePerSlot(t *testing.T) {
	dir, c4db := tickHome(t)
	d := startDaemon(t, dir)
	time.Sleep(2500 * time.Millisecond)
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("SIGTERM exit = %d\n%s", code, d.logText())
	}
	if !strings.Contains(d.logText(), "scheduler stopped") {
		t.Errorf("no clean stop in the log:\n%s", d.logText())
	}
	first, _ := ledger(t, dir, c4db)
	if first < 1 || first > 5 { // load on the test machine may delay the start a little
		t.Fatalf("%d messages in 2.5 s of an every-second task", first)
	}

	// A restart continues from the stored next slot.
	d = startDaemon(t, dir)
	time.Sleep(1500 * time.Millisecond)
	d.stop(t, syscall.SIGINT)
	if total, _ := ledger(t, dir, c4db); total <= first {
		t.Fatalf("no runs after restart: %d then %d", first, total)
	}
}

// A task added while the daemon sleeps is picked up at once on SIGHUP.
func TestSchedulerPicksUpNewTaskOnSIGHUP(t *testing.T) {
	dir, c4db := c4Home(t, nil, "")
	d := startDaemon(t, dir)
	r := testutil.Run{ZylosDir: dir, Env: realClock}
	if res := r.Exec(t, "scheduler", "add", "tick", "--every", "1s", "--priority", "2", "--name", "tick"); res.Code != 0 {
		t.Fatal(res.Stderr)
	}
	d.cmd.Process.Signal(syscall.SIGHUP)
	d.waitLog(t, "reloading tasks")
	d.waitLog(t, `task=tick`)
	d.stop(t, syscall.SIGTERM)
	if messages, _ := ledger(t, dir, c4db); messages == 0 {
		t.Fatal("the new task never ran")
	}
}

// A task that needs the agent idle waits while the status file says busy
// and runs once it says idle.
func TestSchedulerWaitsForIdle(t *testing.T) {
	dir, c4db := c4Home(t, nil, "")
	statusFile := filepath.Join(dir, "activity-monitor", "agent-status.json")
	os.MkdirAll(filepath.Dir(statusFile), 0o755)
	os.WriteFile(statusFile, []byte(`{"state":"busy"}`), 0o644)
	r := testutil.Run{ZylosDir: dir, Env: realClock}
	if res := r.Exec(t, "scheduler", "add", "tidy up", "--in", "1s", "--require-idle", "--name", "tidy"); res.Code != 0 {
		t.Fatal(res.Stderr)
	}
	d := startDaemon(t, dir)
	d.waitLog(t, "status=waiting")
	os.WriteFile(statusFile, []byte(`{"state":"idle"}`), 0o644)
	d.cmd.Process.Signal(syscall.SIGHUP) // re-check now rather than at the next poll
	d.waitLog(t, `msg="task ran" task=tidy`)
	d.stop(t, syscall.SIGTERM)
	db := rawDB(t, c4db)
	defer db.Close()
	var n, idle int
	if err := db.QueryRow(`SELECT count(*), coalesce(sum(require_idle), 0) FROM conversations
		WHERE content = '[Scheduled Task: tidy] tidy up'`).Scan(&n, &idle); err != nil || n != 1 || idle != 1 {
		t.Fatalf("C4 rows %d with require_idle %d (%v), want 1 and 1", n, idle, err)
	}
	hist := r.Exec(t, "scheduler", "history", "tidy")
	if !strings.Contains(hist.Stdout, " ok ") || strings.Count(hist.Stdout, "tidy") != 1 {
		t.Errorf("history:\n%s", hist.Stdout)
	}
}

// kill -9 at arbitrary points, then restart: the ledger still balances.
func TestSchedulerSurvivesSIGKILL(t *testing.T) {
	dir, c4db := tickHome(t)
	for _, after := range []time.Duration{1100, 1530, 1970} {
		d := startDaemon(t, dir)
		time.Sleep(after * time.Millisecond)
		d.stop(t, syscall.SIGKILL)
	}
	d := startDaemon(t, dir)
	time.Sleep(300 * time.Millisecond)
	d.stop(t, syscall.SIGTERM)
	messages, _ := ledger(t, dir, c4db)
	if messages == 0 {
		t.Fatal("nothing ran")
	}
}

func TestSchedulerSingleInstance(t *testing.T) {
	dir, _ := c4Home(t, nil, "")
	d := startDaemon(t, dir)
	res := testutil.Run{ZylosDir: dir, Env: realClock, Timeout: 5 * time.Second}.Exec(t, "scheduler", "run")
	want := "scheduler already running (pid " + strconv.Itoa(d.cmd.Process.Pid) + ")"
	if res.Code != 1 || !strings.Contains(res.Stderr, want) {
		t.Fatalf("second run: exit %d, stderr %q; want 1 and %q", res.Code, res.Stderr, want)
	}
	status := testutil.Run{ZylosDir: dir}.Exec(t, "status")
	if want := "Scheduler: running (pid " + strconv.Itoa(d.cmd.Process.Pid) + ")"; !strings.Contains(status.Stdout, want) {
		t.Errorf("status while running lacks %q:\n%s", want, status.Stdout)
	}
	d.stop(t, syscall.SIGTERM)
	status = testutil.Run{ZylosDir: dir}.Exec(t, "status")
	if !strings.Contains(status.Stdout, "Scheduler: not running") {
		t.Errorf("status after stop:\n%s", status.Stdout)
	}
}

func TestSchedulerLogFormats(t *testing.T) {
	dir, _ := c4Home(t, nil, "")
	d := startDaemon(t, dir, "--log-format", "json")
	d.stop(t, syscall.SIGTERM)
	// Every line is JSON (the dashboard's address comes first), and one
	// says the scheduler started.
	started := false
	for _, line := range strings.Split(strings.TrimSpace(d.logText()), "\n") {
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Errorf("log line %q: %v", line, err)
		}
		started = started || entry["msg"] == "scheduler started"
	}
	if !started {
		t.Errorf("no JSON line says the scheduler started:\n%s", d.logText())
	}
	res := testutil.Run{ZylosDir: dir}.Exec(t, "scheduler", "run", "--log-format", "xml")
	if res.Code != 1 || !strings.Contains(res.Stderr, `--log-format "xml": want text or json`) {
		t.Errorf("bad log format: exit %d, stderr %q", res.Code, res.Stderr)
	}
}

func TestSchedulerCorruptStateDB(t *testing.T) {
	dir, _ := c4Home(t, nil, "")
	state := filepath.Join(dir, "memory", ".state")
	os.MkdirAll(state, 0o700)
	garbage := []byte("not a database\n")
	db := filepath.Join(state, "scheduler.db")
	os.WriteFile(db, garbage, 0o600)
	for _, args := range [][]string{{"scheduler", "list"}, {"scheduler", "run"}} {
		res := testutil.Run{ZylosDir: dir, Timeout: 5 * time.Second}.Exec(t, args...)
		if res.Code != 1 || !strings.Contains(res.Stderr, "scheduler state DB is unreadable") {
			t.Errorf("%v: exit %d, stderr %q", args, res.Code, res.Stderr)
		}
	}
	if got, _ := os.ReadFile(db); string(got) != string(garbage) {
		t.Error("the corrupt state DB was changed")
	}
}

func TestSchedulerCLI(t *testing.T) {
	dir, _ := c4Home(t, nil, "")
	r := testutil.Run{ZylosDir: dir}
	steps := []struct {
		args       string
		code       int
		stdout     string // substring
		stderrPart string
	}{
		{"scheduler add report --cron 0~9~*~*~1-5 --name weekday --timezone America/New_York", 0,
			"Task added: weekday (next run 2026-03-16 13:00:00 UTC)", ""},
		{"scheduler add ping --every 30m --priority 1 --require-idle --name ping", 0, "Task added: ping", ""},
		{"scheduler add once --in 10m --name once", 0, "Task added: once (next run 2026-03-15 10:40:00 UTC)", ""},
		{"scheduler add dup --every 1h --name ping", 1, "", "task already exists: ping"},
		{"scheduler add bad --cron 0~25~*~*~*", 1, "", "invalid schedule"},
		{"scheduler add bad --every soon", 1, "", "invalid duration"},
		{"scheduler add bad --every 1h --priority 0", 1, "", "priority 0"},
		{"scheduler add bad --every 1h --timezone Nowhere/City", 1, "", "unknown time zone"},
		{"scheduler add bad --at 2020-01-01T00:00:00Z", 1, "", "in the past"},
		{"scheduler add bad", 1, "", "exactly one of --cron"},
		{"scheduler add --every 1h", 1, "", "PROMPT"},
		{"scheduler pause ping", 0, "Task paused: ping", ""},
		{"scheduler pause nothing", 1, "", "no such task: nothing"},
		{"scheduler trigger ping", 0, "Task ping: ok", ""},
		{"scheduler resume ping", 0, "Task resumed: ping", ""},
		{"scheduler remove once", 0, "Task removed: once", ""},
		{"scheduler history ping --limit 5", 0, "trigger: queued C4 message 1 (priority 1)", ""},
		{"scheduler history --limit 0", 1, "", "--limit 0"},
		{"scheduler list", 0, "weekday  0 9 * * 1-5 (America/New_York)", ""},
	}
	for _, s := range steps {
		args := strings.Fields(s.args)
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "~", " ")
		}
		res := r.Exec(t, args...)
		if res.Code != s.code || !strings.Contains(res.Stdout, s.stdout) || !strings.Contains(res.Stderr, s.stderrPart) {
			t.Errorf("%s: exit %d\nstdout: %s\nstderr: %s", s.args, res.Code, res.Stdout, res.Stderr)
		}
	}
}

// BenchmarkSchedulerStartToFirstTick runs the real daemon on a home with
// the built-in tasks and measures process start to the end of its first
// pass over the tasks ("scheduler ready"), then stops it with SIGTERM. The
// "help" case is the same binary printing its help: the start-up cost every
// command pays (Go runtime and package initialisation), for comparison.
func BenchmarkSchedulerStartToFirstTick(b *testing.B) {
	dir, _ := c4Home(b, nil, "")
	if res := (testutil.Run{ZylosDir: dir}).Exec(b, "init"); res.Code != 0 {
		b.Fatalf("init: %s", res.Stderr)
	}
	bin := testutil.Binary(b)
	env := []string{"HOME=" + filepath.Dir(dir), "TZ=UTC", "ZYLOS_DIR=" + dir}
	b.Run("help", func(b *testing.B) {
		for range b.N {
			cmd := exec.Command(bin, "--help")
			cmd.Env = env
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("scheduler-run", func(b *testing.B) {
		for range b.N {
			startToReady(b, bin, env)
		}
	})
}

func startToReady(b *testing.B, bin string, env []string) {
	cmd := exec.Command(bin, "scheduler", "run")
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "scheduler ready") {
	}
	b.StopTimer()
	defer b.StartTimer()
	cmd.Process.Signal(syscall.SIGTERM)
	io.Copy(io.Discard, stderr)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("daemon: %v", err)
	}
}

// TestSchedulerAddInTheRepeatedHour adds a daily task while clocks go
// back, in the first pass of the repeated hour, for a slot later in that
// hour: its next run is the slot's first occurrence, the one about to
// come, east and west of UTC alike.
func TestSchedulerAddInTheRepeatedHour(t *testing.T) {
	tests := []struct {
		zone, now, cron, want string
	}{
		// 02:10 CEST; 02:30 CEST is 00:30 UTC, 02:30 CET an hour later.
		{"Europe/Berlin", "2026-10-25T00:10:00Z", "30 2 * * *", "2026-10-25 00:30:00 UTC"},
		// 01:40 LHDT (+11); 01:50 LHDT is 14:50 UTC, 01:50 LHST (+10:30) half an hour later.
		{"Australia/Lord_Howe", "2026-04-04T14:40:00Z", "50 1 * * *", "2026-04-04 14:50:00 UTC"},
		// 01:10 EDT; 01:30 EDT is 05:30 UTC, 01:30 EST an hour later.
		{"America/New_York", "2026-11-01T05:10:00Z", "30 1 * * *", "2026-11-01 05:30:00 UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.zone, func(t *testing.T) {
			dir, _ := c4Home(t, nil, "")
			r := testutil.Run{ZylosDir: dir, Env: []string{"ZYLOS_MEMORY_NOW=" + tt.now}}
			res := r.Exec(t, "scheduler", "add", "report", "--cron", tt.cron, "--name", "daily", "--timezone", tt.zone)
			if want := "Task added: daily (next run " + tt.want + ")\n"; res.Code != 0 || res.Stdout != want {
				t.Fatalf("want %q, got exit %d\nstdout: %s\nstderr: %s", want, res.Code, res.Stdout, res.Stderr)
			}
		})
	}
}
