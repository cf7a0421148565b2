package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// pluginDir is the Claude Code plugin of this repository.
func pluginDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "plugin"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

const pluginCommand = `"${CLAUDE_PLUGIN_ROOT}/bin/zylos-memory-plugin" hook `

// TestClaudePluginHooksAreTheEvents: the plugin registers every entry
// point init registers, with the same matchers and timeouts.
func TestClaudePluginHooksAreTheEvents(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(pluginDir(t), "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Hooks) != len(hooks.Events()) {
		t.Errorf("the plugin has %d events, init registers %d", len(doc.Hooks), len(hooks.Events()))
	}
	for _, ev := range hooks.Events() {
		groups := doc.Hooks[ev.Name]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Errorf("%s: %+v, want one group of one hook", ev.Name, groups)
			continue
		}
		h := groups[0].Hooks[0]
		if groups[0].Matcher != ev.Matcher || h.Type != "command" || h.Command != pluginCommand+ev.Command || h.Timeout != ev.Timeout {
			t.Errorf("%s: matcher %q, %+v; want matcher %q, command %q, timeout %d", ev.Name, groups[0].Matcher, h,
				ev.Matcher, pluginCommand+ev.Command, ev.Timeout)
		}
	}
}

func TestClaudePluginSkillIsTheTemplate(t *testing.T) {
	plugin, err := os.ReadFile(filepath.Join(pluginDir(t), "skills", "memory", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	template, err := os.ReadFile(filepath.Join("..", "templates", "skill", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(plugin) != string(template) {
		t.Error("plugin/skills/memory/SKILL.md differs from templates/skill/SKILL.md: copy the template over it")
	}
}

// wrapper runs the plugin's wrapper with PATH set to path.
func wrapper(t testing.TB, script, path, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, args...)
	cmd.Env = []string{"PATH=" + path, "HOME=" + t.TempDir(), "ZYLOS_DIR=" + filepath.Join(t.TempDir(), "zylos"), "TZ=UTC"}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// TestClaudePluginWithoutBinaryFailsOpen: with no zylos-memory beside the
// wrapper or on PATH, every hook exits 0 with one line saying how to
// install it, and the MCP server exits 1 with the same line.
func TestClaudePluginWithoutBinaryFailsOpen(t *testing.T) {
	script := filepath.Join(pluginDir(t), "bin", "zylos-memory-plugin")
	for _, ev := range hooks.Events() {
		out, errOut, code := wrapper(t, script, "/usr/bin:/bin", `{"hook_event_name":"`+ev.Name+`"}`, "hook", ev.Command)
		if code != 0 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "run 'make install'") {
			t.Errorf("hook %s without the binary: exit %d, stdout %q, stderr %q", ev.Command, code, out, errOut)
		}
	}
	if _, errOut, code := wrapper(t, script, "/usr/bin:/bin", "", "mcp"); code != 1 || !strings.Contains(errOut, "run 'make install'") {
		t.Errorf("mcp without the binary: exit %d, stderr %q", code, errOut)
	}
}

// TestClaudePluginFindsTheBinary: the wrapper runs the binary beside it,
// else the one on PATH, and serves the MCP tools through it.
func TestClaudePluginFindsTheBinary(t *testing.T) {
	bin := testutil.MCPBinary(t)
	script := filepath.Join(pluginDir(t), "bin", "zylos-memory-plugin")
	payload := `{"hook_event_name":"SessionStart","source":"startup"}`
	out, errOut, code := wrapper(t, script, filepath.Dir(bin)+":/usr/bin:/bin", payload, "hook", "session-start")
	if code != 0 || !strings.Contains(out, `"hookEventName":"SessionStart"`) {
		t.Errorf("binary on PATH: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	beside := t.TempDir()
	copyExecutable(t, script, filepath.Join(beside, "zylos-memory-plugin"))
	copyExecutable(t, bin, filepath.Join(beside, "zylos-memory"))
	out, errOut, code = wrapper(t, filepath.Join(beside, "zylos-memory-plugin"), "/usr/bin:/bin", payload, "hook", "session-start")
	if code != 0 || !strings.Contains(out, `"hookEventName":"SessionStart"`) {
		t.Errorf("binary beside the wrapper: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	zylos := mcpHome(t)
	cmd := exec.Command(script, "mcp")
	cmd.Env = testutil.Run{ZylosDir: zylos, Env: []string{"PATH=" + filepath.Dir(bin) + ":/usr/bin:/bin"}}.Environ()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "plugin-test", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := mustCall(t, s, "memory_search", map[string]any{"query": "sqlite"}); !strings.Contains(got, "Use SQLite for the conversation log") {
		t.Errorf("search through the plugin's server: %s", got)
	}
}

func copyExecutable(t testing.TB, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}
