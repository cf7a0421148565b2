package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
	"github.com/zylos/zylos-memory/internal/testutil"
)

const userSettings = `{"permissions":{"allow":["Bash(ls:*)"]},"hooks":{"SessionStart":[{"matcher":"","hooks":[{"type":"command","command":"echo mine"}]}]}}`

// ourCommands counts, per event, the commands of settings that run our hooks.
func ourCommands(t *testing.T, settings string) map[string]int {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	data, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("settings are not valid JSON: %v", err)
	}
	counts := map[string]int{}
	for event, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if strings.Contains(h.Command, " hook ") {
					counts[event]++
				}
			}
		}
	}
	return counts
}

func TestInitRegistersHooks(t *testing.T) {
	zylos := filepath.Join(t.TempDir(), "zylos")
	settings := filepath.Join(zylos, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(userSettings), 0o644)
	run := testutil.Run{ZylosDir: zylos}

	res := run.Exec(t, "init")
	if res.Code != 0 || !strings.Contains(res.Stdout, "registered hooks in .claude/settings.local.json") ||
		!strings.Contains(res.Stdout, "saved the previous settings as .claude/settings.local.json.bak-20260315T103000Z") {
		t.Fatalf("init: %+v", res)
	}
	want := map[string]int{"SessionStart": 1, "UserPromptSubmit": 1, "Stop": 1, "PreToolUse": 1, "PostToolUse": 1, "PostToolUseFailure": 1}
	if got := ourCommands(t, settings); !equalCounts(got, want) {
		t.Errorf("registered %v, want %v", got, want)
	}
	data, _ := os.ReadFile(settings)
	if !strings.Contains(string(data), `"echo mine"`) || !strings.Contains(string(data), `"Bash(ls:*)"`) {
		t.Errorf("the user's settings were not kept:\n%s", data)
	}

	res = run.Exec(t, "init")
	if res.Code != 0 || !strings.Contains(res.Stdout, "hooks already registered") {
		t.Errorf("second init: %+v", res)
	}
	if again, _ := os.ReadFile(settings); string(again) != string(data) {
		t.Error("second init rewrote the settings")
	}
}

func TestInitLeavesMalformedSettings(t *testing.T) {
	zylos := filepath.Join(t.TempDir(), "zylos")
	settings := filepath.Join(zylos, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	const broken = `{"hooks": {"SessionStart": [`
	os.WriteFile(settings, []byte(broken), 0o644)
	res := testutil.Run{ZylosDir: zylos}.Exec(t, "init")
	if res.Code != 1 || !strings.Contains(res.Stderr, "settings.local.json is malformed, left untouched") {
		t.Fatalf("init: %+v", res)
	}
	if data, _ := os.ReadFile(settings); string(data) != broken {
		t.Errorf("malformed settings changed to %q", data)
	}
	if _, err := os.Stat(filepath.Join(zylos, "memory", "core.md")); err != nil {
		t.Errorf("the other init steps did not run: %v", err)
	}
}

func TestInitConcurrentRegistration(t *testing.T) {
	zylos := filepath.Join(t.TempDir(), "zylos")
	run := testutil.Run{ZylosDir: zylos}
	if res := run.Exec(t, "init"); res.Code != 0 {
		t.Fatalf("init: %+v", res)
	}
	settings := filepath.Join(zylos, ".claude", "settings.local.json")
	os.Remove(settings)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run.Exec(t, "init")
		}()
	}
	wg.Wait()
	want := map[string]int{"SessionStart": 1, "UserPromptSubmit": 1, "Stop": 1, "PreToolUse": 1, "PostToolUse": 1, "PostToolUseFailure": 1}
	if got := ourCommands(t, settings); !equalCounts(got, want) {
		t.Errorf("after concurrent inits: %v, want %v", got, want)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestDoctor(t *testing.T) {
	testutil.MCPBinary(t)
	good := hookHome(t, 3)
	broken := hookHome(t, 0)
	os.WriteFile(filepath.Join(broken, "comm-bridge", "c4.db"), []byte(strings.Repeat("garbage", 1000)), 0o644)
	os.Remove(filepath.Join(broken, ".claude", "settings.local.json"))
	moved := hookHome(t, 0)
	settings := filepath.Join(moved, ".claude", "settings.local.json")
	data, _ := os.ReadFile(settings)
	os.WriteFile(settings, []byte(strings.ReplaceAll(string(data), testutil.Binary(t), "/no/such/zylos-memory")), 0o644)
	other := hookHome(t, 0)
	otherSettings := filepath.Join(other, ".claude", "settings.local.json")
	data, _ = os.ReadFile(otherSettings)
	os.WriteFile(otherSettings, []byte(strings.ReplaceAll(string(data), "--zylos-dir "+other, "--zylos-dir /elsewhere/zylos")), 0o644)

	noServer := hookHome(t, 0)
	os.WriteFile(filepath.Join(noServer, ".mcp.json"), []byte(`{"mcpServers":{"mine":{"command":"true"}}}`), 0o644)

	tests := []struct {
		name     string
		zylos    string
		wantCode int
		want     []string
	}{
		{"good", good, 0, []string{"ok    dirs:", "ok    core.md:", "ok    c4 db:", "ok    hook session-start: answered in", "ok    hook post-tool-use: answered in",
			"ok    mcp approval: zylos-memory approved", "ok    mcp server: answered initialize in",
			"tools memory_history, memory_read, memory_save, memory_search, memory_status"}},
		{"broken", broken, 1, []string{"ok    dirs:", "FAIL  c4 db:", "FAIL  hooks: open", "warn  mcp approval: zylos-memory is not in enabledMcpjsonServers"}},
		{"no MCP server", noServer, 1, []string{"FAIL  mcp server: zylos-memory is not in .mcp.json (run: zylos-memory init)"}},
		{"settings of another home", other, 0, []string{"warn  hook session-start: answers, but for another home than"}},
		{"moved binary", moved, 1, []string{"FAIL  hook session-start: /no/such/zylos-memory is not an executable (run: zylos-memory init)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := testutil.Run{ZylosDir: tt.zylos}.Exec(t, "doctor")
			if res.Code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", res.Code, tt.wantCode, res.Stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Stdout, w) {
					t.Errorf("missing %q in\n%s", w, res.Stdout)
				}
			}
			for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
				if !strings.HasPrefix(line, "ok    ") && !strings.HasPrefix(line, "warn  ") && !strings.HasPrefix(line, "FAIL  ") {
					t.Errorf("line without a status: %q", line)
				}
			}
		})
	}
}

// BenchmarkHookSessionStart runs the whole session-start hook process on a
// home with core.md and a C4 database of 1,000 conversations.
func BenchmarkHookSessionStart(b *testing.B) {
	zylos := filepath.Join(b.TempDir(), "zylos")
	c4fixture.Create(b, filepath.Join(zylos, "comm-bridge", "c4.db"), 1000, 200)
	if res := (testutil.Run{ZylosDir: zylos}).Exec(b, "init"); res.Code != 0 {
		b.Fatalf("init: %+v", res)
	}
	run := testutil.Run{ZylosDir: zylos, Stdin: `{"hook_event_name":"SessionStart","source":"startup"}`}
	cpu := testutil.StartChildCPU(b)
	for b.Loop() {
		if res := run.Exec(b, "hook", "session-start"); res.Code != 0 || res.Stdout == "" {
			b.Fatalf("%+v", res)
		}
	}
	cpu.Report()
}

// BenchmarkHookUserPromptSubmit is the per-prompt cost: C4 threshold check
// plus retrieval, as a whole process.
func BenchmarkHookUserPromptSubmit(b *testing.B) {
	zylos := hookHome(b, 1000)
	run := testutil.Run{ZylosDir: zylos, Stdin: `{"prompt":"why did we pick the sqlite database?"}`}
	cpu := testutil.StartChildCPU(b)
	for b.Loop() {
		if res := run.Exec(b, "hook", "user-prompt-submit"); res.Code != 0 {
			b.Fatalf("%+v", res)
		}
	}
	cpu.Report()
}
