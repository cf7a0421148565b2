package integration

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// The hook client and the memory service trust each other only as far as
// docs/hooks.md says: the same user, the home's own socket, the service's
// own binary.

// monotonicMS is CLOCK_MONOTONIC in ms, the clock client.c stamps its
// requests with.
func monotonicMS(tb testing.TB) int64 {
	var ts syscall.Timespec
	const clockMonotonic = 1
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		tb.Fatal(errno)
	}
	return ts.Sec*1000 + ts.Nsec/1e6
}

// identityOf names a binary as client.c does in its requests.
func identityOf(tb testing.TB, path string) string {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		tb.Fatal(err)
	}
	return fmt.Sprintf("%d:%d:%d:%d.%09d", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec)
}

// craftedHook sends the service of zylos a request as client.c would,
// naming exe as the client's binary, and relays stdin if it accepts. It
// returns the service's first byte and, when it accepted, its answer.
func craftedHook(tb testing.TB, zylos, exe string, args, env []string, stdin string) (byte, []byte) {
	tb.Helper()
	conn, err := net.Dial("unix", filepath.Join(zylos, "memory", ".state", "hooks.sock"))
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	mask := syscall.Umask(0) // the test's umask, as its hooks' and its service's
	syscall.Umask(mask)
	fields := []string{"zylos-memory hook/2", identityOf(tb, testutil.Binary(tb)), exe, zylos,
		strconv.FormatInt(monotonicMS(tb), 10), strconv.Itoa(mask), strconv.Itoa(len(args))}
	fields = append(append(fields, args...), env...)
	body := strings.Join(fields, "\x00") + "\x00"
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	if _, err := conn.Write(append(msg, body...)); err != nil {
		tb.Fatal(err)
	}
	var first [1]byte
	if _, err := io.ReadFull(conn, first[:]); err != nil {
		tb.Fatal(err)
	}
	if first[0] != 'A' {
		return first[0], nil
	}
	var deadline [4]byte
	if _, err := io.ReadFull(conn, deadline[:]); err != nil {
		tb.Fatal(err)
	}
	io.WriteString(conn, stdin)
	conn.(*net.UnixConn).CloseWrite()
	rest, err := io.ReadAll(conn)
	if err != nil {
		tb.Fatal(err)
	}
	return first[0], rest
}

// TestServiceRunsOnlyItsOwnBinary sends the service requests whose
// answer starts a background reindex (no index, and a build that cannot
// finish within the hook's deadline): one names another executable, which
// must never run; the one naming the service's binary gets the index built
// by it.
func TestServiceRunsOnlyItsOwnBinary(t *testing.T) {
	zylos := residentHome(t)
	var big strings.Builder
	big.WriteString("# Session Log: 2026-03-15\n\n")
	for i := range 20000 {
		fmt.Fprintf(&big, "**09:%02d** - kafka consumer lag alert number %d tuned again\n", i%60, i)
	}
	if err := os.WriteFile(filepath.Join(zylos, "memory", "sessions", "current.md"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(zylos, "memory", ".state", "search.db")
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	evil := filepath.Join(t.TempDir(), "evilexe")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\necho \"$@\" > "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	startService(t, zylos)
	own, err := filepath.EvalSymlinks(testutil.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{own, "hook", "user-prompt-submit", "--timeout", "60ms"}
	env := []string{"ZYLOS_DIR=" + zylos, "HOME=" + filepath.Dir(zylos), "TZ=UTC", "ZYLOS_MEMORY_NOW=" + hookClock}
	stdin := prompt("s", "what did we set the kafka consumer lag alert to?")

	first, answer := craftedHook(t, zylos, evil, append([]string{evil}, args[1:]...), env, stdin)
	time.Sleep(500 * time.Millisecond) // a started process has long written its marker
	if data, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the service ran %s %s(first byte %q, answer %q)", evil, data, first, answer)
	}

	if first, answer := craftedHook(t, zylos, own, args, env, stdin); first != 'A' || len(answer) == 0 || answer[0] != 'R' {
		t.Fatalf("the service did not answer its own binary's request: %q %q", first, answer)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(index); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the service's own binary never built the index")
		}
	}
}

// foreignListenerEnv makes the test binary a listener of another user
// (foreignListener) instead of running the tests.
const foreignListenerEnv = "ZYLOS_TEST_FOREIGN_LISTENER"

// foreignUID is the user the foreign listener runs as (nobody).
const foreignUID = 65534

// foreignListener listens on path as uid foreignUID and answers every
// connection as a service would, with an answer of its own: it reports
// on stdout the bytes each connection sent it. With
// ZYLOS_TEST_BIND_AS_ROOT set, the socket is bound before the uid is
// dropped, so that its file is root's and only the listening process is
// another user's (SO_PEERCRED records the credentials of listen).
func foreignListener(path string) int {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	bindAsRoot := os.Getenv("ZYLOS_TEST_BIND_AS_ROOT") != ""
	bind := func() error { return syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}) }
	if bindAsRoot {
		// Through the directory, as the service binds: a long path fits.
		dir, err := syscall.Open(filepath.Dir(path), syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		name := fmt.Sprintf("/proc/self/fd/%d/%s", dir, filepath.Base(path))
		bind = func() error { return syscall.Bind(fd, &syscall.SockaddrUnix{Name: name}) }
	}
	drop := func() error {
		if err := syscall.Setgroups(nil); err != nil {
			return err
		}
		if err := syscall.Setgid(foreignUID); err != nil {
			return err
		}
		return syscall.Setuid(foreignUID)
	}
	steps := []func() error{drop, bind}
	if bindAsRoot {
		steps = []func() error{bind, drop}
	}
	for _, step := range append(steps, func() error { return syscall.Listen(fd, 16) }) {
		if err := step(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	f := os.NewFile(uintptr(fd), path)
	ln, err := net.FileListener(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("listening")
	for {
		conn, err := ln.Accept()
		if err != nil {
			return 1
		}
		go func() {
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(3 * time.Second))
			received := make(chan int64)
			go func() {
				n, _ := io.Copy(io.Discard, conn)
				received <- n
			}()
			out := `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"INJECTED"}}` + "\n"
			msg := append([]byte{'A'}, binary.BigEndian.AppendUint32(nil, 500)...)
			msg = append(msg, 'R')
			msg = binary.BigEndian.AppendUint32(msg, 0)
			msg = binary.BigEndian.AppendUint32(msg, uint32(len(out)))
			msg = append(msg, out...)
			msg = binary.BigEndian.AppendUint32(msg, 0)
			time.Sleep(100 * time.Millisecond) // the request, then the stdin it relays
			conn.Write(msg)
			conn.(*net.UnixConn).CloseWrite()
			fmt.Printf("received %d bytes\n", <-received)
		}()
	}
}

// startForeignListener runs foreignListener on path in a process of its
// own and returns what it reported once stopped.
func startForeignListener(tb testing.TB, path string, bindAsRoot bool) (stop func() string) {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), foreignListenerEnv+"="+path)
	if bindAsRoot {
		cmd.Env = append(cmd.Env, "ZYLOS_TEST_BIND_AS_ROOT=1")
	}
	var out strings.Builder
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	first := make([]byte, len("listening\n"))
	if _, err := io.ReadFull(stdout, first); err != nil || string(first) != "listening\n" {
		cmd.Process.Kill()
		cmd.Wait()
		tb.Fatalf("the foreign listener did not start: %v %q", err, first)
	}
	done := make(chan struct{})
	go func() {
		io.Copy(&out, stdout)
		close(done)
	}()
	stopped := false
	stop = func() string {
		if !stopped {
			stopped = true
			time.Sleep(200 * time.Millisecond) // a connection's report
			cmd.Process.Kill()
			<-done
			cmd.Wait()
		}
		return out.String()
	}
	tb.Cleanup(func() { stop() })
	return stop
}

// TestHookTellsNothingToAnotherUsersSocket puts a listener of another
// user where the hook client looks for the memory service: it must not
// receive a byte, and the hook answers in its own process exactly as
// with no listener.
func TestHookTellsNothingToAnotherUsersSocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a listener of another user needs root to start")
	}
	hook := hookCall{args: []string{"hook", "user-prompt-submit"}, env: []string{"SECRET_TOKEN=sk-123"},
		stdin: prompt("s", "what did we set the kafka consumer lag alert to? my secret prompt")}
	check := func(t *testing.T, zylos, sock string, bindAsRoot bool) {
		want := hook.run(t, zylos)
		if !want.goRan {
			t.Fatalf("answered without a listener: %+v", want)
		}
		stop := startForeignListener(t, sock, bindAsRoot)
		var st syscall.Stat_t
		if err := syscall.Stat(sock, &st); err != nil {
			t.Fatal(err)
		}
		if bindAsRoot != (st.Uid == 0) {
			t.Fatalf("the socket is uid %d's", st.Uid)
		}
		got := hook.run(t, zylos)
		report := stop()
		if strings.Count(report, "received") != strings.Count(report, "received 0 bytes") {
			t.Errorf("the hook talked to uid %d's listener: %s", foreignUID, report)
		}
		if !got.goRan || got.Result != want.Result {
			t.Fatalf("the hook answered\n%+v\nwithout the listener\n%+v", got, want)
		}
	}

	t.Run("state linked to a world-writable directory", func(t *testing.T) {
		zylos := residentHome(t)
		shared, err := os.MkdirTemp("", "zylos-shared-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(shared) })
		if err := os.Chmod(shared, 0o1777); err != nil {
			t.Fatal(err)
		}
		state := filepath.Join(zylos, "memory", ".state")
		if err := os.RemoveAll(state); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(shared, state); err != nil {
			t.Fatal(err)
		}
		check(t, zylos, filepath.Join(shared, "hooks.sock"), false)
	})

	t.Run("another user listening on the home's socket", func(t *testing.T) {
		zylos := residentHome(t)
		want := hook.run(t, zylos)
		if !strings.Contains(want.Stdout, "30 seconds") {
			t.Fatalf("the home's own answer misses the memory: %+v", want)
		}
		check(t, zylos, filepath.Join(zylos, "memory", ".state", "hooks.sock"), true)
	})
}

// TestHookWaitsNoLongerThanItsOwnDeadline puts a listener of the hook's own
// user on the home's socket that accepts the hook with a deadline of
// 0xFFFFFFFF ms and never answers: the hook waits its own deadline (800
// ms without --timeout, 2 s with --timeout 2s), then fails open.
func TestHookWaitsNoLongerThanItsOwnDeadline(t *testing.T) {
	zylos := residentHome(t)
	sock := filepath.Join(zylos, "memory", ".state", "hooks.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				conn.Write([]byte{'A', 0xFF, 0xFF, 0xFF, 0xFF})
				io.Copy(io.Discard, conn) // holds until the client goes
			}()
		}
	}()
	for _, c := range []struct {
		args  []string
		limit time.Duration
	}{
		{[]string{"hook", "user-prompt-submit"}, 5 * time.Second},
		{[]string{"hook", "user-prompt-submit", "--timeout", "2s"}, 8 * time.Second},
	} {
		res := hookCall{args: c.args, stdin: prompt("s", "kafka consumer lag")}.run(t, zylos)
		// A hang is what is tested, with room for a loaded machine: the
		// client's wait is the deadline and 250 ms.
		if res.Code != 0 || res.elapsed > c.limit {
			t.Errorf("%v: exit %d after %v (limit %v)\n%+v", c.args, res.Code, res.elapsed, c.limit, res)
		}
	}
}
