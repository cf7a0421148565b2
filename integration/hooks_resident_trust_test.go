package integration

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
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
	fields := []string{"zylos-memory hook/1", identityOf(tb, testutil.Binary(tb)), exe, zylos,
		strconv.FormatInt(monotonicMS(tb), 10), strconv.Itoa(len(args))}
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
