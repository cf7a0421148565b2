package integration

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// holdLockEnv names the C4 database TestHelperHoldC4Lock locks when this
// test binary runs it as a second process.
const holdLockEnv = "ZYLOS_MEMORY_TEST_HOLD_C4_LOCK"

// TestHelperHoldC4Lock is not a test: run as a child process, it opens a
// C4 database in exclusive locking mode, writes to it (which takes the
// lock for as long as the connection lives), says "locked" and holds the
// lock until its stdin closes.
func TestHelperHoldC4Lock(t *testing.T) {
	path := os.Getenv(holdLockEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_locking_mode=EXCLUSIVE")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`UPDATE checkpoints SET summary = summary`); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin)
	db.Close()
}

// holdC4Lock starts a second process holding c4db in exclusive locking
// mode until the test ends.
func holdC4Lock(t *testing.T, c4db string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldC4Lock$")
	cmd.Env = append(os.Environ(), holdLockEnv+"="+c4db)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("lock holder: %q %v", line, err)
	}
}

// sessionStartContext runs the session-start hook and returns the context
// it injected; it must answer, with exit 0, well within its deadline.
func sessionStartContext(t *testing.T, zylos string) (context, stderr string) {
	t.Helper()
	start := time.Now()
	res := testutil.Run{ZylosDir: zylos, Stdin: `{"hook_event_name":"SessionStart","source":"startup"}`}.Exec(t, "hook", "session-start")
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	var ans struct {
		HookSpecificOutput struct{ AdditionalContext string }
	}
	if err := json.Unmarshal([]byte(res.Stdout), &ans); err != nil {
		t.Fatalf("no answer after %v (%v): stdout %q, stderr %q", time.Since(start), err, res.Stdout, res.Stderr)
	}
	return ans.HookSpecificOutput.AdditionalContext, res.Stderr
}

// A C4 database held by another process in exclusive locking mode costs
// the session-start hook its conversations, never its core memory.
func TestSessionStartAnswersCoreWhileC4IsLocked(t *testing.T) {
	zylos := hookHome(t, 5)
	holdC4Lock(t, filepath.Join(zylos, "comm-bridge", "c4.db"))
	context, stderr := sessionStartContext(t, zylos)
	if !strings.HasPrefix(context, "=== CORE MEMORY (loaded at session start) ===\n\n# Core Memory") {
		t.Errorf("core memory missing from the answer:\n%s", context)
	}
	if !strings.Contains(stderr, "c4: no answer within") || !strings.Contains(stderr, "locked by another process") {
		t.Errorf("stderr does not say the C4 half was given up: %q", stderr)
	}
}

// A 150 MB core.md is answered from its head, capped, within the deadline.
func TestSessionStartAnswersHugeCore(t *testing.T) {
	zylos := hookHome(t, 5)
	core := filepath.Join(zylos, "memory", "core.md")
	f, err := os.OpenFile(core, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("# Core Memory\n\n## Identity\nThe first line survives.\n")
	line := strings.Repeat("x", 79) + "\n"
	chunk := strings.Repeat(line, 1<<14) // 1.25 MiB
	for range 120 {
		if _, err := f.WriteString(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	context, stderr := sessionStartContext(t, zylos)
	if !strings.Contains(context, "The first line survives.") {
		t.Errorf("core memory head missing:\n%.300s", context)
	}
	if !strings.Contains(context, "core.md is 157286452 bytes; only its first 65536 were read") {
		t.Errorf("answer lacks the size note:\n...%s", context[max(0, len(context)-800):])
	}
	if stderr != "" {
		t.Errorf("stderr: %q", stderr)
	}
}
