package integration

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestFIFOsAreRefused puts a FIFO where a command reads a file of the home
// or of the user. Opened the ordinary way, a FIFO blocks until a writer
// comes, so the command would never return; it must instead refuse the
// path with one clear line, and a hook must still answer with exit 0.
func TestFIFOsAreRefused(t *testing.T) {
	pending := "/tmp/.memory-write-pending-fifo-" + strconv.Itoa(os.Getpid()) + ".json"
	const refusal = "a named pipe (FIFO), not a regular file; refusing to open it"
	tests := []struct {
		name, fifo string // fifo is relative to the home unless absolute
		args       []string
		stdin      string
		env        []string
		code       int
	}{
		{"inject core.md", "memory/core.md", []string{"inject"}, "", nil, 1},
		{"session-start core.md", "memory/core.md", []string{"hook", "session-start"}, `{"source":"startup"}`, nil, 0},
		{"status .env", ".env", []string{"status"}, "", []string{"TZ="}, 1},
		{"rotate .env", ".env", []string{"rotate"}, "", []string{"TZ="}, 1},
		{"consolidate .env", ".env", []string{"consolidate"}, "", []string{"TZ="}, 1},
		{"scheduler list .env", ".env", []string{"scheduler", "list"}, "", []string{"TZ="}, 1},
		{"scheduler list db", "memory/.state/scheduler.db", []string{"scheduler", "list"}, "", nil, 1},
		{"c4 db", "comm-bridge/c4.db", []string{"c4", "unsummarized"}, "", nil, 1},
		{"c4 db wal", "comm-bridge/c4.db-wal", []string{"c4", "unsummarized"}, "", nil, 1},
		{"search c4 db", "comm-bridge/c4.db", []string{"search", "sqlite"}, "", nil, 0},
		{"doctor settings", ".claude/settings.local.json", []string{"doctor"}, "", nil, 1},
		{"records lock", "memory/records/.index.lock", []string{"records", "write", "--action", "retire",
			"--target", "memory/records/decisions/x.json", "--reason", "old"}, "", nil, 1},
		{"records input", pending, []string{"records", "write", "--action", "create", "--category", "decision",
			"--target", "memory/records/decisions/y.json", "--input", pending}, "", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zylos := filepath.Join(t.TempDir(), "zylos")
			if res := (testutil.Run{ZylosDir: zylos}).Exec(t, "init"); res.Code != 0 {
				t.Fatalf("init: %+v", res)
			}
			fifo := tt.fifo
			if !filepath.IsAbs(fifo) {
				fifo = filepath.Join(zylos, fifo)
			}
			os.Remove(fifo)
			if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			t.Cleanup(func() { os.Remove(fifo) })
			res := testutil.Run{ZylosDir: zylos, Dir: zylos, Stdin: tt.stdin, Env: tt.env, Timeout: 10 * time.Second}.Exec(t, tt.args...)
			if res.Code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", res.Code, tt.code, res.Stdout, res.Stderr)
			}
			if !strings.Contains(res.Stdout+res.Stderr, fifo+": "+refusal) {
				t.Errorf("output does not name the FIFO:\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			}
			if tt.code != 0 && strings.Count(strings.TrimSpace(res.Stderr), "\n") > 0 && !strings.HasPrefix(res.Stderr, "INPUT_ERROR") {
				t.Errorf("error is more than one line:\n%s", res.Stderr)
			}
		})
	}
}
