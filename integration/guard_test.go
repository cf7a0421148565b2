package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// guardHome is a zylos home with a records root and one link into it.
func guardHome(tb testing.TB) (zylos, root string) {
	tb.Helper()
	zylos = filepath.Join(tb.TempDir(), "zylos")
	root = filepath.Join(zylos, "memory", "records")
	for _, d := range []string{"decisions", ".staging"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Symlink(root, filepath.Join(zylos, "shortcut")); err != nil {
		tb.Fatal(err)
	}
	return zylos, root
}

func toolPayload(path string) string {
	return fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q,"content":"x"},"cwd":"/"}`, path)
}

func TestGuardAnswers(t *testing.T) {
	zylos, root := guardHome(t)
	cases := []struct {
		name, path string
		deny       bool
	}{
		{"record", filepath.Join(root, "decisions", "x.json"), true},
		{"index", filepath.Join(root, "index.md"), true},
		{"dot-dot back in", filepath.Join(root, ".staging", "..", "decisions", "x.json"), true},
		{"through a symlink", filepath.Join(zylos, "shortcut", "decisions", "x.json"), true},
		{"plugin root", "/work/proj/.claude/memory/decisions/d.json", true},
		{"staging dir", filepath.Join(root, ".staging", "input-decision.json"), false},
		{"pending file", "/tmp/.memory-write-pending-42.json", false},
		{"triage context", "/tmp/.memory-triage-context-decision.txt", false},
		{"core.md", filepath.Join(zylos, "memory", "core.md"), false},
		{"elsewhere", "/tmp/notes.txt", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := testutil.Run{ZylosDir: zylos, Stdin: toolPayload(c.path)}.Exec(t, "records", "guard")
			if res.Code != 0 {
				t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
			}
			denied := strings.Contains(res.Stdout, `"permissionDecision":"deny"`)
			if denied != c.deny {
				t.Fatalf("denied = %v, want %v; stdout %q", denied, c.deny, res.Stdout)
			}
			if !c.deny && res.Stdout != "" {
				t.Fatalf("allow must print nothing, got %q", res.Stdout)
			}
		})
	}
	res := testutil.Run{ZylosDir: zylos, Stdin: toolPayload(filepath.Join(root, "decisions", "x.json"))}.Exec(t, "records", "guard")
	testutil.Golden(t, "testdata/guard-deny.golden", []byte(strings.NewReplacer(testutil.Binary(t), "$BIN", zylos, "$ZYLOS").Replace(res.Stdout)))
}

func TestToolHooksFailOpen(t *testing.T) {
	zylos, _ := guardHome(t)
	for _, cmd := range []string{"guard", "validate"} {
		for _, stdin := range []string{"", "garbage", `[]`, `{"tool_input":"x"}`, `{"tool_input":{"file_path":7}}`} {
			res := testutil.Run{ZylosDir: zylos, Stdin: stdin}.Exec(t, "records", cmd)
			if res.Code != 0 || res.Stdout != "" {
				t.Errorf("%s %q: exit %d, stdout %q", cmd, stdin, res.Code, res.Stdout)
			}
		}
	}
}

func TestValidateQuarantines(t *testing.T) {
	zylos, root := guardHome(t)
	valid := `{"schema_version":"1.0","category":"decision","id":"use-wal","title":"Use WAL",
"created_at":"2026-03-15T10:30:00Z","updated_at":"2026-03-15T10:30:00Z","tags":["db"],
"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`
	cases := []struct {
		name, file, body string
		block, moved     bool
	}{
		{"valid", "decisions/ok.json", valid, false, false},
		{"invalid", "decisions/bad.json", `{"category":"decision"}`, true, true},
		{"not json", "decisions/junk.json", "not json at all", true, true},
		{"markdown in the root", "notes.md", "# notes", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(root, c.file)
			os.WriteFile(path, []byte(c.body), 0o644)
			res := testutil.Run{ZylosDir: zylos, Stdin: toolPayload(path)}.Exec(t, "records", "validate")
			if res.Code != 0 {
				t.Fatalf("exit %d", res.Code)
			}
			if got := strings.Contains(res.Stdout, `"decision":"block"`); got != c.block {
				t.Fatalf("block = %v, want %v; stdout %q", got, c.block, res.Stdout)
			}
			if !strings.Contains(res.Stderr, "bypassing the memory write guard") {
				t.Errorf("no warning on stderr: %q", res.Stderr)
			}
			moved := path + ".invalid.1773570600" // ZYLOS_MEMORY_NOW
			if _, err := os.Stat(moved); (err == nil) != c.moved {
				t.Fatalf("quarantine copy exists = %v, want %v", err == nil, c.moved)
			}
			if c.moved {
				if data, _ := os.ReadFile(moved); string(data) != c.body {
					t.Fatalf("quarantined content changed: %q", data)
				}
			}
			if c.block {
				golden := "testdata/validate-" + strings.ReplaceAll(c.name, " ", "-") + ".golden"
				testutil.Golden(t, golden, []byte(strings.NewReplacer(testutil.Binary(t), "$BIN", zylos, "$ZYLOS").Replace(res.Stdout)))
			}
		})
	}
}

// BenchmarkGuard is the whole PreToolUse process on a denied write
// (target: under 5 ms).
func BenchmarkGuard(b *testing.B) {
	zylos, root := guardHome(b)
	run := testutil.Run{ZylosDir: zylos, Stdin: toolPayload(filepath.Join(root, "decisions", "x.json"))}
	cpu := testutil.StartChildCPU(b)
	for range b.N {
		if res := run.Exec(b, "records", "guard"); res.Stdout == "" {
			b.Fatalf("not denied: %q", res.Stderr)
		}
	}
	cpu.Report()
}
