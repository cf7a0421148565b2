package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// init --capture-prompts switches on recording what is typed into Claude
// Code (UserPromptSubmit, direction in) and its final replies (Stop,
// direction out) in C4 on channel claude-code; off by default, and
// --capture-prompts=false turns it off again.
func TestCapturePrompts(t *testing.T) {
	zylos := filepath.Join(t.TempDir(), "zylos")
	settings := filepath.Join(zylos, ".claude", "settings.local.json")
	captureEnv := func() string {
		data, _ := os.ReadFile(settings)
		var s struct{ Env map[string]string }
		json.Unmarshal(data, &s)
		return s.Env["ZYLOS_MEMORY_CAPTURE_PROMPTS"]
	}
	run := testutil.Run{ZylosDir: zylos}
	if res := run.Exec(t, "init"); res.Code != 0 || captureEnv() != "" {
		t.Fatalf("capture on by default: %+v", res)
	}
	if res := run.Exec(t, "init", "--capture-prompts"); res.Code != 0 || captureEnv() != "1" ||
		!strings.Contains(res.Stdout, "prompt capture on") {
		t.Fatalf("init --capture-prompts: %+v, env %q", res, captureEnv())
	}
	if res := run.Exec(t, "init"); res.Code != 0 || captureEnv() != "1" {
		t.Fatalf("a plain init turned capture off: %+v", res)
	}

	// Claude Code hands the settings' env to the hooks.
	on := testutil.Run{ZylosDir: zylos, Env: []string{"ZYLOS_MEMORY_CAPTURE_PROMPTS=1"}}
	on.Stdin = `{"session_id":"s9","hook_event_name":"UserPromptSubmit","prompt":"Please rename the cron task."}`
	on.Exec(t, "hook", "user-prompt-submit")
	on.Stdin = `{"session_id":"s9","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Renamed it to nightly."}`
	on.Exec(t, "hook", "stop")
	off := testutil.Run{ZylosDir: zylos, Stdin: `{"session_id":"s9","prompt":"not recorded"}`}
	off.Exec(t, "hook", "user-prompt-submit")

	res := run.Exec(t, "c4", "fetch", "--begin", "1", "--end", "100")
	want := []string{"IN (claude-code:s9):\nPlease rename the cron task.", "OUT (claude-code:s9):\nRenamed it to nightly."}
	for _, w := range want {
		if !strings.Contains(res.Stdout, w) {
			t.Errorf("C4 lacks %q:\n%s", w, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout, "not recorded") {
		t.Errorf("recorded without capture on:\n%s", res.Stdout)
	}

	if res := run.Exec(t, "init", "--capture-prompts=false"); res.Code != 0 || captureEnv() != "" {
		t.Fatalf("init --capture-prompts=false: %+v, env %q", res, captureEnv())
	}
}
