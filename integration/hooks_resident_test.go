package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// The memory service answers the prompt hook over memory/.state/hooks.sock
// (package hooks/resident). These tests run the real binary as Claude Code
// does, with and without the service, and require the same answers.
//
// GODEBUG=inittrace=1 makes a Go program print a line for each package it
// initialises: a hook the service answered prints none, because its Go
// runtime never started.

// residentHome is a hook home with its index built and no sync trigger
// due (5 conversations, under every threshold).
func residentHome(tb testing.TB) string {
	tb.Helper()
	zylos := hookHome(tb, 5)
	if err := os.WriteFile(filepath.Join(zylos, "memory", "sessions", "current.md"),
		[]byte("# Session Log: 2026-03-15\n\n**09:12** - tuned the kafka consumer lag alert to 30 seconds\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	if res := (testutil.Run{ZylosDir: zylos}).Exec(tb, "reindex"); res.Code != 0 {
		tb.Fatalf("reindex: %+v", res)
	}
	return zylos
}

// hookCall is one hook process: its arguments, environment and stdin.
type hookCall struct {
	args  []string
	env   []string // added to testutil.Run's environment ("KEY=" removes KEY)
	stdin string
	dir   string
	// hold keeps stdin open after the payload, as a client that never
	// closes the pipe.
	hold bool
	// stdinPath, when set, is opened as stdin instead.
	stdinPath string
	// umask, when set, is the hook's (octal), through a shell.
	umask string
}

// hookResult is what a hook process left, with how long it took and
// whether its Go runtime started.
type hookResult struct {
	testutil.Result
	elapsed time.Duration
	goRan   bool
}

func (c hookCall) run(tb testing.TB, zylos string) hookResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testutil.Binary(tb), c.args...)
	if c.umask != "" {
		cmd = exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `umask ` + c.umask + ` && exec "$0" "$@"`, testutil.Binary(tb)}, c.args...)...)
	}
	cmd.Env = testutil.Run{ZylosDir: zylos, Env: append([]string{"GODEBUG=inittrace=1"}, c.env...)}.Environ()
	cmd.Dir = c.dir
	var in io.WriteCloser = nopCloser{io.Discard}
	if c.stdinPath != "" {
		f, err := os.Open(c.stdinPath)
		if err != nil {
			tb.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
	} else {
		pipe, err := cmd.StdinPipe()
		if err != nil {
			tb.Fatal(err)
		}
		in = pipe
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	io.WriteString(in, c.stdin)
	if !c.hold {
		in.Close()
	}
	err := cmd.Wait()
	in.Close()
	res := hookResult{elapsed: time.Since(t0)}
	if exit, ok := err.(*exec.ExitError); ok {
		res.Code = exit.ExitCode()
	} else if err != nil {
		tb.Fatal(err)
	}
	res.Stdout = stdout.String()
	res.goRan = strings.Contains(stderr.String(), "init runtime")
	res.Stderr = withoutInits(stderr.String())
	return res
}

// hookClock is testutil.Run's clock.
const hookClock = "2026-03-15T10:30:00Z"

// binaryCopy is another build as the service sees it: the same bytes in
// another file.
func binaryCopy(tb testing.TB) string {
	tb.Helper()
	copied := filepath.Join(tb.TempDir(), "zylos-memory")
	if out, err := exec.Command("cp", testutil.Binary(tb), copied).CombinedOutput(); err != nil {
		tb.Fatal(err, string(out))
	}
	return copied
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func prompt(session, text string) string {
	return fmt.Sprintf(`{"session_id":%q,"hook_event_name":"UserPromptSubmit","prompt":%q}`, session, text)
}

// startService starts the memory service of zylos, on the hooks' clock,
// and waits for its socket.
func startService(tb testing.TB, zylos string) *daemon {
	tb.Helper()
	d := startDaemonEnv(tb, zylos, []string{"ZYLOS_MEMORY_NOW=" + hookClock})
	sock := filepath.Join(zylos, "memory", ".state", "hooks.sock")
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(sock); err == nil {
			return d
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no %s:\n%s", sock, d.logText())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestServiceAnswersPromptHookAsTheProcess(t *testing.T) {
	zylos := residentHome(t)
	hook := []string{"hook", "user-prompt-submit"}
	big := `{"prompt":"` + strings.Repeat("kafka ", 9<<20/6) + `"}`
	cases := map[string]func(session string) hookCall{
		"memory found": func(s string) hookCall {
			return hookCall{args: hook, stdin: prompt(s, "what did we set the kafka consumer lag alert to?")}
		},
		"record found": func(s string) hookCall {
			return hookCall{args: hook, stdin: prompt(s, "why did we pick the sqlite database?")}
		},
		"nothing found": func(s string) hookCall { return hookCall{args: hook, stdin: prompt(s, "xylophone quartz")} },
		"short prompt":  func(s string) hookCall { return hookCall{args: hook, stdin: prompt(s, "ok")} },
		"empty stdin":   func(string) hookCall { return hookCall{args: hook} },
		"not JSON":      func(string) hookCall { return hookCall{args: hook, stdin: "kafka consumer lag"} },
		// Reading 8 MiB takes a good part of the default deadline's half
		// on a slow machine, in the process as through the service.
		"over 8 MiB": func(string) hookCall { return hookCall{args: append(hook, "--timeout", "4s"), stdin: big} },
		"stdin held open": func(s string) hookCall {
			return hookCall{args: hook, stdin: prompt(s, "kafka consumer lag alert"), hold: true}
		},
		"stdin open and silent": func(string) hookCall { return hookCall{args: hook, hold: true} },
		"timeout flag": func(s string) hookCall {
			return hookCall{args: append(hook, "--timeout", "2s"), stdin: prompt(s, "kafka consumer lag")}
		},
		"zylos-dir flag": func(s string) hookCall {
			return hookCall{args: append([]string{"--zylos-dir=" + zylos}, hook...), env: []string{"ZYLOS_DIR="},
				stdin: prompt(s, "kafka consumer lag")}
		},
		"relative zylos-dir": func(s string) hookCall {
			return hookCall{args: append([]string{"--zylos-dir", "zylos"}, hook...), dir: filepath.Dir(zylos),
				env: []string{"ZYLOS_DIR="}, stdin: prompt(s, "kafka consumer lag")}
		},
		"home from HOME": func(s string) hookCall {
			return hookCall{args: hook, env: []string{"ZYLOS_DIR="}, stdin: prompt(s, "kafka consumer lag")}
		},
		"sync trigger from the environment": func(s string) hookCall {
			return hookCall{args: hook, env: []string{"C4_SYNC_THRESHOLD=2"}, stdin: prompt(s, "kafka consumer lag")}
		},
		"clock from the environment": func(s string) hookCall {
			return hookCall{args: hook, env: []string{"ZYLOS_MEMORY_NOW=2031-01-01T00:00:00Z"}, stdin: prompt(s, "kafka consumer lag")}
		},
	}
	inProcess := map[string]hookResult{}
	for name, c := range cases {
		res := c("process "+name).run(t, zylos)
		if !res.goRan {
			t.Fatalf("%s: answered without a service running", name)
		}
		inProcess[name] = res
	}
	startService(t, zylos)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			want := inProcess[name]
			got := c("service "+name).run(t, zylos)
			if got.goRan {
				t.Fatalf("the process answered itself (stderr %q)", got.Stderr)
			}
			if got.Result != want.Result {
				t.Fatalf("the service answered\n%+v\nthe process\n%+v", got.Result, want.Result)
			}
		})
	}
	if res := inProcess["memory found"]; !strings.Contains(res.Stdout, "kafka consumer lag alert to 30 seconds") {
		t.Errorf("the answer misses the session line: %+v", res)
	}
	if res := inProcess["sync trigger from the environment"]; !strings.Contains(res.Stdout, "[Action Required]") {
		t.Errorf("C4_SYNC_THRESHOLD=2 gave no trigger: %+v", res)
	}
}

func TestServiceLeavesToTheProcessWhatItCannotAnswerExactly(t *testing.T) {
	zylos := residentHome(t)
	other := residentHome(t)
	startService(t, zylos)
	// other's socket leads to zylos's service: asked for another home, it
	// must decline.
	if err := os.Symlink(filepath.Join(zylos, "memory", ".state", "hooks.sock"),
		filepath.Join(other, "memory", ".state", "hooks.sock")); err != nil {
		t.Fatal(err)
	}
	copied := binaryCopy(t)
	hook := []string{"hook", "user-prompt-submit"}
	stdin := prompt("s", "kafka consumer lag alert")
	cases := map[string]struct {
		call hookCall
		home string
	}{
		"another timezone":       {hookCall{args: hook, env: []string{"TZ=Asia/Tokyo"}, stdin: stdin}, zylos},
		"another home":           {hookCall{args: hook, stdin: stdin}, other},
		"a crash point":          {hookCall{args: hook, env: []string{"ZYLOS_MEMORY_TEST_CRASH_AT=nowhere"}, stdin: stdin}, zylos},
		"a bad timeout":          {hookCall{args: append(hook, "--timeout", "soon"), stdin: stdin}, zylos},
		"a bad clock":            {hookCall{args: hook, env: []string{"ZYLOS_MEMORY_NOW=tomorrow"}, stdin: stdin}, zylos},
		"a hook of no event":     {hookCall{args: []string{"hook", "notification"}, stdin: stdin}, zylos},
		"another umask":          {hookCall{args: hook, umask: "077", stdin: stdin}, zylos},
		"a timeout over an hour": {hookCall{args: append(hook, "--timeout", "2h"), stdin: stdin}, zylos},
		// Its read error is the process's to report.
		"stdin a directory": {hookCall{args: hook, stdinPath: t.TempDir()}, zylos},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := tc.call.run(t, tc.home)
			if !res.goRan {
				t.Fatalf("the service answered: %+v", res)
			}
		})
	}
	t.Run("another build", func(t *testing.T) {
		cmd := exec.Command(copied, "hook", "user-prompt-submit")
		cmd.Env = testutil.Run{ZylosDir: zylos, Env: []string{"GODEBUG=inittrace=1"}}.Environ()
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "init runtime") || !strings.Contains(string(out), "30 seconds") {
			t.Fatalf("the copy did not answer itself: %v\n%s", err, out)
		}
	})
}

// TestServiceFaultsFailOpen stops and kills the real service around hooks:
// a hook never hangs and never loses its answer to a service that
// cannot give it.
func TestServiceFaultsFailOpen(t *testing.T) {
	zylos := residentHome(t)
	hook := hookCall{args: []string{"hook", "user-prompt-submit"}, stdin: prompt("s", "kafka consumer lag alert")}
	d := startService(t, zylos)
	if res := hook.run(t, zylos); res.goRan || !strings.Contains(res.Stdout, "30 seconds") {
		t.Fatalf("not answered by the service: %+v", res)
	}

	t.Run("stopped service", func(t *testing.T) {
		d.cmd.Process.Signal(syscall.SIGSTOP)
		defer d.cmd.Process.Signal(syscall.SIGCONT)
		res := hook.run(t, zylos)
		if !res.goRan || !strings.Contains(res.Stdout, "30 seconds") {
			t.Fatalf("a stopped service cost the answer: %+v", res)
		}
	})

	t.Run("service stopped while answering", func(t *testing.T) {
		// The service waits for the payload of a client that keeps stdin
		// open; it is stopped meanwhile.
		silent := hookCall{args: hook.args, hold: true}
		go func() {
			time.Sleep(100 * time.Millisecond)
			d.cmd.Process.Signal(syscall.SIGSTOP)
		}()
		defer d.cmd.Process.Signal(syscall.SIGCONT)
		res := silent.run(t, zylos)
		if res.Code != 0 || res.Stdout != "" || !strings.Contains(res.Stderr, "(failing open)") {
			t.Fatalf("want a silent exit 0 failing open, got %+v", res)
		}
		if res.elapsed > 3*time.Second {
			t.Fatalf("the hook took %v", res.elapsed)
		}
	})

	t.Run("service killed while answering", func(t *testing.T) {
		silent := hookCall{args: hook.args, hold: true}
		go func() {
			time.Sleep(100 * time.Millisecond)
			d.cmd.Process.Kill()
		}()
		res := silent.run(t, zylos)
		if res.Code != 0 || res.Stdout != "" || !strings.Contains(res.Stderr, "no answer from the memory service in time (failing open)") {
			t.Fatalf("want a silent exit 0 failing open, got %+v", res)
		}
		d.cmd.Wait()
	})

	t.Run("socket of a dead service", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(zylos, "memory", ".state", "hooks.sock")); err != nil {
			t.Fatalf("the killed service left no socket to test with: %v", err)
		}
		if res := hook.run(t, zylos); !res.goRan || !strings.Contains(res.Stdout, "30 seconds") {
			t.Fatalf("a dead service's socket cost the answer: %+v", res)
		}
	})

	t.Run("restarted service", func(t *testing.T) {
		startService(t, zylos)
		if res := hook.run(t, zylos); res.goRan || !strings.Contains(res.Stdout, "30 seconds") {
			t.Fatalf("the restarted service did not answer: %+v", res)
		}
	})
}

func TestServiceAnswersManyHooksAtOnce(t *testing.T) {
	zylos := residentHome(t)
	call := hookCall{args: []string{"hook", "user-prompt-submit"}, stdin: prompt("s", "kafka consumer lag alert")}
	want := call.run(t, zylos).Result
	startService(t, zylos)
	const n = 40
	var wg sync.WaitGroup
	results := make([]hookResult, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = call.run(t, zylos)
		}()
	}
	wg.Wait()
	served := 0
	for i, res := range results {
		if res.Result != want {
			t.Errorf("hook %d answered %+v, want %+v", i, res.Result, want)
		}
		if !res.goRan {
			served++
		}
	}
	if served == 0 {
		t.Error("the service answered none of them")
	}
	t.Logf("%d of %d answered by the service", served, n)
}

func TestDoctorSaysWhetherTheServiceAnswers(t *testing.T) {
	zylos := residentHome(t)
	line := func(bin string, umask ...string) string {
		t.Helper()
		cmd := exec.Command(bin, "doctor")
		if len(umask) > 0 {
			cmd = exec.Command("/bin/sh", "-c", `umask `+umask[0]+` && exec "$0" doctor`, bin)
		}
		cmd.Env = testutil.Run{ZylosDir: zylos}.Environ()
		out, _ := cmd.Output()
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "hook service:") {
				return l
			}
		}
		t.Fatalf("doctor says nothing of the service:\n%s", out)
		return ""
	}
	bin := testutil.Binary(t)
	if l := line(bin); !strings.HasPrefix(l, "warn") || !strings.Contains(l, "(not running)") {
		t.Errorf("no service: %q", l)
	}
	d := startService(t, zylos)
	if l := line(bin); !strings.HasPrefix(l, "ok") || !strings.Contains(l, fmt.Sprintf("pid %d answers", d.cmd.Process.Pid)) {
		t.Errorf("service up: %q", l)
	}
	if l := line(bin, "077"); !strings.HasPrefix(l, "warn") || !strings.Contains(l, "this shell with 077") {
		t.Errorf("another umask: %q", l)
	}
	if l := line(binaryCopy(t)); !strings.HasPrefix(l, "warn") || !strings.Contains(l, "another build") {
		t.Errorf("another build: %q", l)
	}
	d.cmd.Process.Kill()
	d.cmd.Wait()
	if l := line(bin); !strings.HasPrefix(l, "warn") || !strings.Contains(l, "gone, its socket left behind") {
		t.Errorf("service killed: %q", l)
	}
}

// TestServiceLeavesNoTrace: what the service starts for a hook it answers
// (an index build in the background) is reaped, and a client on a small
// stack still answers.
func TestServiceLeavesNoTrace(t *testing.T) {
	zylos := stormHome(t) // large enough that a hook cannot build its index in 12 ms
	d := startService(t, zylos)
	index, _ := filepath.Glob(filepath.Join(zylos, "memory", ".state", "search.db*"))
	for _, f := range index {
		os.Remove(f)
	}
	// Too short a deadline to build the index in the hook: it is built
	// in the background.
	quick := hookCall{args: []string{"hook", "user-prompt-submit", "--timeout", "12ms"}, stdin: prompt("s", "kafka consumer lag")}
	for range 3 {
		if res := quick.run(t, zylos); res.goRan {
			t.Fatalf("the process answered itself: %+v", res)
		}
	}
	// Wait for the background build to end, then no child may be left.
	// The build may end before the first look at the service's children:
	// the index it leaves (renamed into place whole) says it ran. A child
	// that has just exited is defunct until the service's wait reaps it a
	// moment later: only one that stays so is left behind.
	built := func() bool {
		_, err := os.Stat(filepath.Join(zylos, "memory", ".state", "search.db"))
		return err == nil
	}
	var defunctSince, asked time.Time
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		alive, defunct := children(t, d.cmd.Process.Pid)
		if alive == 0 && defunct == 0 && built() {
			break
		}
		// On a loaded machine a 12 ms hook can end before the service got
		// to start the build: ask again while none runs.
		if alive == 0 && !built() && time.Since(asked) > 500*time.Millisecond {
			quick.run(t, zylos)
			asked = time.Now()
		}
		if alive == 0 && defunct > 0 {
			if defunctSince.IsZero() {
				defunctSince = time.Now()
			} else if time.Since(defunctSince) > 2*time.Second {
				t.Fatalf("the service left %d defunct children", defunct)
			}
		} else {
			defunctSince = time.Time{}
		}
		if time.Now().After(deadline) {
			if !built() {
				t.Fatal("no background index build was started: this test tests nothing")
			}
			t.Fatalf("the background index build still runs after 30 s")
		}
	}

	cmd := exec.Command("sh", "-c", `ulimit -s 128 && exec "$0" hook user-prompt-submit`, testutil.Binary(t))
	cmd.Env = testutil.Run{ZylosDir: zylos, Env: []string{"GODEBUG=inittrace=1"}}.Environ()
	cmd.Stdin = strings.NewReader(prompt("s", "kafka consumer lag alert"))
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "init runtime") || !strings.Contains(string(out), "kafka consumer") {
		t.Fatalf("on a 128 KiB stack: %v\n%s", err, out)
	}
}

// children counts the live and the defunct (zombie) children of pid.
func children(tb testing.TB, pid int) (alive, defunct int) {
	tb.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		_, rest, ok := strings.Cut(string(data), ") ")
		var state string
		var ppid int
		if !ok {
			continue
		}
		if _, err := fmt.Sscan(rest, &state, &ppid); err != nil || ppid != pid {
			continue
		}
		if state == "Z" {
			defunct++
		} else {
			alive++
		}
	}
	return alive, defunct
}

// TestServiceAnswerWaitsForAFullStdout: a caller that hands the hook a
// non-blocking stdout, full for a while, still gets the whole answer.
func TestServiceAnswerWaitsForAFullStdout(t *testing.T) {
	zylos := residentHome(t)
	startService(t, zylos)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fd := int(w.Fd()) // Fd makes the file blocking: set non-blocking after
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	filler := bytes.Repeat([]byte("x"), 4096)
	filled := 0
	for {
		n, err := syscall.Write(fd, filler)
		if err != nil {
			break // EAGAIN: the pipe is full
		}
		filled += n
	}
	cmd := exec.Command(testutil.Binary(t), "hook", "user-prompt-submit")
	cmd.Env = testutil.Run{ZylosDir: zylos, Env: []string{"GODEBUG=inittrace=1"}}.Environ()
	cmd.Stdin = strings.NewReader(prompt("s", "kafka consumer lag alert"))
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Start made the pipe blocking again (os.File.Fd); the flag is shared
	// with the hook's descriptor, and the hook writes only after starting.
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	w.Close()
	time.Sleep(time.Second) // the hook finds stdout full
	out, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "init runtime") {
		t.Fatal("the process answered itself")
	}
	if answer := string(out[filled:]); !strings.Contains(answer, "30 seconds") || !strings.HasSuffix(answer, "}}\n") {
		t.Fatalf("the answer after the filler: %q", answer)
	}
}

// TestPromptHookSaysWhyTheIndexFails: an index that cannot be opened nor
// rebuilt (search.db a directory) costs the memories, and the hook says
// why in one line, in its own process as through the service.
func TestPromptHookSaysWhyTheIndexFails(t *testing.T) {
	zylos := residentHome(t)
	index := filepath.Join(zylos, "memory", ".state", "search.db")
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(index, 0o755); err != nil {
		t.Fatal(err)
	}
	hook := hookCall{args: []string{"hook", "user-prompt-submit"}, stdin: prompt("s", "what did we set the kafka consumer lag alert to?")}
	check := func(res hookResult) {
		t.Helper()
		want := "zylos-memory hook user-prompt-submit: build search index: rename " + index + ".new-"
		if res.Code != 0 || res.Stdout != "" || !strings.HasPrefix(res.Stderr, want) ||
			!strings.HasSuffix(res.Stderr, " "+index+": file exists\n") || strings.Count(res.Stderr, "\n") != 1 {
			t.Fatalf("want no context and one line on stderr starting %q, got %+v", want, res)
		}
	}
	inProcess := hook.run(t, zylos)
	if !inProcess.goRan {
		t.Fatalf("answered without a service: %+v", inProcess)
	}
	check(inProcess)
	startService(t, zylos)
	served := hook.run(t, zylos)
	if served.goRan {
		t.Fatalf("the process answered itself: %+v", served)
	}
	check(served)
}
