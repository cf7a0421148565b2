package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
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
			res.Stdout = strings.ReplaceAll(res.Stdout, testutil.Binary(t), "$BIN")
			testutil.Golden(t, filepath.Join("testdata", "hooks", tt.name+".golden"), scrubbed(res, zylos))
		})
	}
}

// The Stop hook blocks with Claude Code's JSON answer (exit 0, nothing on
// stderr), keeps its state under the home's memory/.state/sessions/, never
// in the session's working directory, and the let-through retry removes it:
// the next stop, of this session or another, is triaged again at once.
func TestHookStopBlocksOnWhatToSave(t *testing.T) {
	zylos, cwd := triageHome(t)
	home := filepath.Dir(zylos)
	path := writeTranscriptJSONL(t, filepath.Join(home, "t.jsonl"),
		[]string{"We decided on SQLite because it is embedded.", strings.Repeat("ok.\n", 5) + "We picked cron."})
	stop := func(session string, active bool) testutil.Result {
		stdin := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"Stop","stop_hook_active":%v}`,
			session, path, cwd, active)
		return testutil.Run{ZylosDir: zylos, Stdin: stdin}.Exec(t, "hook", "stop")
	}
	res := stop("s1", false)
	var ans struct{ Decision, Reason string }
	if res.Code != 0 || res.Stderr != "" || json.Unmarshal([]byte(res.Stdout), &ans) != nil ||
		ans.Decision != "block" || !strings.Contains(ans.Reason, "[DECISION]") {
		t.Fatalf("want a JSON block (exit 0, the decision in reason), got %+v", res)
	}
	state := filepath.Join(zylos, "memory", ".state", "sessions", "s1")
	if st, err := os.Stat(filepath.Join(state, "stop-blocked")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("stop flag not in the session's state: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cwd, ".claude")); !os.IsNotExist(err) {
		t.Fatalf("the hook wrote into the working directory: %v", err)
	}
	if res := stop("s1", true); res.Code != 0 || res.Stdout != "" {
		t.Fatalf("the retry after a block must pass, got %+v", res)
	}
	if entries, _ := os.ReadDir(state); len(entries) != 0 {
		t.Fatalf("the let-through retry left %v", entries)
	}
	for _, session := range []string{"s2", "s1"} {
		if res := stop(session, false); !strings.Contains(res.Stdout, `"decision":"block"`) {
			t.Fatalf("session %s: a stop after the retry was silenced: %+v", session, res)
		}
	}
}

// The final reply comes as last_assistant_message and may not be in the
// transcript yet: a decision stated only there still blocks the stop.
func TestHookStopTriagesFinalReply(t *testing.T) {
	zylos, cwd := triageHome(t)
	path := writeTranscriptJSONL(t, filepath.Join(filepath.Dir(zylos), "t.jsonl"), []string{"Looking at the options."})
	reply := "We decided on SQLite because it is embedded.\nWe chose cron over a loop because it is simpler."
	stdin, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": path, "cwd": cwd,
		"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": reply})
	res := testutil.Run{ZylosDir: zylos, Stdin: string(stdin)}.Exec(t, "hook", "stop")
	if !strings.Contains(res.Stdout, `"decision":"block"`) || !strings.Contains(res.Stdout, "We chose cron") {
		t.Fatalf("the final reply was not triaged: %+v", res)
	}
}

// Context files are per home and session, 0600, in a 0700 directory, and
// gone once the stop goes through.
func TestHookStopContextFilesPrivate(t *testing.T) {
	zylos, cwd := triageHome(t)
	path := writeTranscriptJSONL(t, filepath.Join(filepath.Dir(zylos), "t.jsonl"),
		[]string{"We decided on SQLite because it is embedded.", strings.Repeat("ok.\n", 5) + "We picked cron."})
	stdin := fmt.Sprintf(`{"session_id":"s","transcript_path":%q,"cwd":%q}`, path, cwd)
	res := testutil.Run{ZylosDir: zylos, Stdin: stdin}.Exec(t, "hook", "stop")
	state := filepath.Join(zylos, "memory", ".state", "sessions", "s")
	file := filepath.Join(state, ".memory-triage-context-decision.txt")
	if !strings.Contains(res.Stdout, file) {
		t.Fatalf("answer does not name %s: %s", file, res.Stdout)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("context file: %v %v", st, err)
	}
	if st, err := os.Stat(state); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("state dir: %v %v", st, err)
	}
	testutil.Run{ZylosDir: zylos, Stdin: strings.Replace(stdin, "{", `{"stop_hook_active":true,`, 1)}.Exec(t, "hook", "stop")
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("context file left after the stop went through: %v", err)
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

// The sync trigger is said once per session: at session start, or at the
// first prompt of a session that was not told, and again only when the
// count has grown by a further threshold.
func TestHookSyncTriggerOncePerSession(t *testing.T) {
	zylos := hookHome(t, 31)
	installChannels(t, zylos, "telegram")
	hook := func(name, session string) string {
		stdin := fmt.Sprintf(`{"session_id":%q,"hook_event_name":"x","source":"startup","prompt":"hello there"}`, session)
		return testutil.Run{ZylosDir: zylos, Stdin: stdin}.Exec(t, "hook", name).Stdout
	}
	const trigger = "[Action Required]"
	if out := hook("session-start", "a"); !strings.Contains(out, trigger) {
		t.Fatalf("session start: no trigger: %s", out)
	}
	if out := hook("user-prompt-submit", "a"); strings.Contains(out, trigger) {
		t.Fatalf("the prompt after session start repeated the trigger: %s", out)
	}
	if out := hook("user-prompt-submit", "b"); !strings.Contains(out, trigger) {
		t.Fatalf("first prompt of an untold session: no trigger: %s", out)
	}
	if out := hook("user-prompt-submit", "b"); strings.Contains(out, trigger) {
		t.Fatalf("second prompt repeated the trigger: %s", out)
	}
	for i := range 29 {
		if res := (testutil.Run{ZylosDir: zylos}).Exec(t, "c4", "receive", "--channel", "telegram",
			"--endpoint", "1", "--content", fmt.Sprint("message ", i)); res.Code != 0 {
			t.Fatalf("c4 receive: %+v", res)
		}
	}
	if out := hook("user-prompt-submit", "b"); strings.Contains(out, trigger) {
		t.Fatalf("repeated below a further threshold (60 of 31+30): %s", out)
	}
	testutil.Run{ZylosDir: zylos}.Exec(t, "c4", "receive", "--channel", "telegram", "--endpoint", "1", "--content", "one more")
	if out := hook("user-prompt-submit", "b"); !strings.Contains(out, "There are 61 unsummarized") {
		t.Fatalf("not said again after a further threshold: %s", out)
	}
	if _, err := os.Stat(filepath.Join(zylos, "memory", ".state", "sessions", "b", "sync-trigger")); err != nil {
		t.Fatalf("trigger state not under memory/.state: %v", err)
	}
}
