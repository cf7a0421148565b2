package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/c4fixture"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// hookHome is an initialised zylos home whose C4 database holds convs
// conversations, and whose decisions log holds one decision about SQLite.
func hookHome(tb testing.TB, convs int) string {
	tb.Helper()
	zylos := filepath.Join(tb.TempDir(), "zylos")
	c4fixture.Create(tb, filepath.Join(zylos, "comm-bridge", "c4.db"), convs, 0)
	if res := (testutil.Run{ZylosDir: zylos}).Exec(tb, "init"); res.Code != 0 {
		tb.Fatalf("init: %+v", res)
	}
	decisions := "# Decisions Log\n\n### [2026-03-01] Use SQLite for the conversation log\n" +
		"- **Decision:** SQLite database with WAL\n- **Context:** embedded database, no server\n- **Status:** active\n"
	if err := os.WriteFile(filepath.Join(zylos, "memory", "reference", "decisions.md"), []byte(decisions), 0o644); err != nil {
		tb.Fatal(err)
	}
	return zylos
}

// scrubbed makes a result independent of its temp dir.
func scrubbed(res testutil.Result, dirs ...string) []byte {
	text := "exit: " + string(rune('0'+res.Code)) + "\n--- stdout\n" + res.Stdout + "--- stderr\n" + res.Stderr
	for _, d := range dirs {
		text = strings.ReplaceAll(text, d, "$DIR")
	}
	return []byte(text)
}

func TestHookAnswers(t *testing.T) {
	zylos := hookHome(t, 31)
	records := filepath.Join(zylos, "memory", "records")
	tests := []struct {
		name, hook, stdin string
	}{
		{"session-start", "session-start", `{"session_id":"s","hook_event_name":"SessionStart","source":"startup"}`},
		{"user-prompt-submit", "user-prompt-submit", `{"hook_event_name":"UserPromptSubmit","prompt":"why did we pick the sqlite database?"}`},
		{"pre-tool-use-deny", "pre-tool-use", `{"tool_name":"Write","tool_input":{"file_path":"` + records + `/decisions/x.json"}}`},
		{"pre-tool-use-allow", "pre-tool-use", `{"tool_name":"Write","tool_input":{"file_path":"/tmp/elsewhere.txt"}}`},
		{"post-tool-use-outside", "post-tool-use", `{"tool_name":"Write","tool_input":{"file_path":"/tmp/elsewhere.txt"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := testutil.Run{ZylosDir: zylos, Stdin: tt.stdin}.Exec(t, "hook", tt.hook)
			if out := strings.TrimSpace(res.Stdout); out != "" && !json.Valid([]byte(out)) {
				t.Fatalf("stdout is not JSON: %s", out)
			}
			testutil.Golden(t, filepath.Join("testdata", "hooks", tt.name+".golden"), scrubbed(res, zylos))
		})
	}
}

func TestHookStopBlocksOnWhatToSave(t *testing.T) {
	zylos, cwd := triageHome(t)
	home := filepath.Dir(zylos)
	path := writeTranscriptJSONL(t, filepath.Join(home, "t.jsonl"),
		[]string{"We decided on SQLite because it is embedded.", strings.Repeat("ok.\n", 5) + "We picked cron."})
	stdin := `{"transcript_path":"` + path + `","cwd":"` + cwd + `","hook_event_name":"Stop","stop_hook_active":false}`
	res := testutil.Run{ZylosDir: zylos, Stdin: stdin}.Exec(t, "hook", "stop")
	if res.Code != 2 || res.Stdout != "" || !strings.Contains(res.Stderr, "[DECISION]") {
		t.Fatalf("want a block (exit 2, the decision on stderr), got %+v", res)
	}
	res = testutil.Run{ZylosDir: zylos, Stdin: stdin}.Exec(t, "hook", "stop")
	if res.Code != 0 {
		t.Errorf("the stop right after a block must pass, got %+v", res)
	}
}

func TestHooksFailOpen(t *testing.T) {
	good := hookHome(t, 3)
	corruptC4 := hookHome(t, 0)
	os.WriteFile(filepath.Join(corruptC4, "comm-bridge", "c4.db"), []byte(strings.Repeat("garbage", 1000)), 0o644)
	coreDir := hookHome(t, 0)
	os.Remove(filepath.Join(coreDir, "memory", "core.md"))
	os.Mkdir(filepath.Join(coreDir, "memory", "core.md"), 0o755)
	missing := filepath.Join(t.TempDir(), "no-such-home")
	tests := []struct {
		name, zylos, stdin string
		env                []string
	}{
		{"garbage stdin", good, "\x00\xff not json {", nil},
		{"empty stdin", good, "", nil},
		{"stdin over the cap", good, `{"prompt":"` + strings.Repeat("x", 9<<20) + `"}`, nil},
		{"missing home", missing, `{}`, nil},
		{"corrupt c4 db", corruptC4, `{}`, nil},
		{"core.md is a directory", coreDir, `{}`, nil},
		{"bad clock", good, `{}`, []string{"ZYLOS_MEMORY_NOW=yesterday"}},
	}
	for _, tt := range tests {
		for _, hook := range []string{"session-start", "user-prompt-submit", "stop", "pre-tool-use", "post-tool-use"} {
			t.Run(tt.name+"/"+hook, func(t *testing.T) {
				res := testutil.Run{ZylosDir: tt.zylos, Stdin: tt.stdin, Env: tt.env}.Exec(t, "hook", hook)
				if res.Code != 0 {
					t.Errorf("exit %d, want 0; stderr %q", res.Code, res.Stderr)
				}
				if out := strings.TrimSpace(res.Stdout); out != "" && !json.Valid([]byte(out)) {
					t.Errorf("stdout is not JSON: %q", out)
				}
				if strings.Count(res.Stderr, "\n") > 1 {
					t.Errorf("stderr has more than one line: %q", res.Stderr)
				}
			})
		}
	}
}

func TestHookStdinNeverClosed(t *testing.T) {
	zylos := hookHome(t, 3)
	for _, hook := range []string{"session-start", "user-prompt-submit", "stop"} {
		t.Run(hook, func(t *testing.T) {
			cmd := exec.Command(testutil.Binary(t), "--zylos-dir", zylos, "hook", hook, "--timeout", "300ms")
			cmd.Env = []string{"HOME=" + filepath.Dir(zylos), "TZ=UTC", "PATH=" + os.Getenv("PATH")}
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdin.Write([]byte(`{"prompt":"never fin`)) // and never closed
			var stderr strings.Builder
			cmd.Stderr = &stderr
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("exit: %v, stderr %q", err, stderr.String())
				}
				if elapsed := time.Since(start); elapsed > 5*time.Second {
					t.Errorf("took %v", elapsed)
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("hook hung on an open stdin")
			}
		})
	}
}
