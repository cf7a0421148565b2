package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// init puts the home into the settings' env (Claude Code hands it to the
// agent's shell), and the command the deny advice gives works verbatim
// from another directory with neither ZYLOS_DIR nor the binary on PATH.
func TestDenyAdviceWorksVerbatim(t *testing.T) {
	zylos := hookHome(t, 0)
	data, err := os.ReadFile(filepath.Join(zylos, ".claude", "settings.local.json"))
	if err != nil {
		t.Fatal(err)
	}
	var settings struct{ Env map[string]string }
	if json.Unmarshal(data, &settings) != nil || settings.Env["ZYLOS_DIR"] != zylos {
		t.Fatalf("settings env does not name the home:\n%s", data)
	}
	target := filepath.Join(zylos, "memory", "records", "decisions", "use-wal.json")
	res := testutil.Run{ZylosDir: zylos, Stdin: toolPayload(target)}.Exec(t, "hook", "pre-tool-use")
	var ans struct {
		HookSpecificOutput struct{ PermissionDecisionReason string }
	}
	if err := json.Unmarshal([]byte(res.Stdout), &ans); err != nil {
		t.Fatalf("no deny: %+v", res)
	}
	reason := ans.HookSpecificOutput.PermissionDecisionReason
	cmdLine := regexp.MustCompile("`([^`]*records write[^`]*)`").FindStringSubmatch(reason)
	staged := regexp.MustCompile(`write its JSON to (\S+) \(allowed\)`).FindStringSubmatch(reason)
	if cmdLine == nil || staged == nil {
		t.Fatalf("advice without a command: %s", reason)
	}
	input := strings.Replace(staged[1], "<name>", "use-wal", 1)
	os.MkdirAll(filepath.Dir(input), 0o755)
	os.WriteFile(input, []byte(`{"title":"Use WAL","tags":["db"],"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`), 0o644)
	line := strings.Replace(cmdLine[1], "<name>", "use-wal", 1)
	elsewhere := t.TempDir()
	sh := exec.Command("/bin/sh", "-c", line)
	sh.Dir = elsewhere
	sh.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + elsewhere}
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("advised command %q failed: %v\n%s", line, err, out)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("the advised write did not land in the home: %v", err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "zylos")); !os.IsNotExist(err) {
		t.Fatal("the advised write created $HOME/zylos")
	}
}

func bashPayload(command, cwd string) string {
	js, _ := json.Marshal(map[string]any{"tool_name": "Bash", "cwd": cwd, "tool_input": map[string]any{"command": command}})
	return string(js)
}

// Shell commands that clearly write into the records folder are denied;
// reads and writes elsewhere go through.
func TestGuardBash(t *testing.T) {
	zylos := hookHome(t, 0)
	root := filepath.Join(zylos, "memory", "records")
	cases := []struct {
		command string
		deny    bool
	}{
		{"echo '{}' > memory/records/decisions/x.json", true},
		{"echo hi >> " + root + "/decisions/x.json", true},
		{"cat a.json | tee -a memory/records/decisions/x.json", true},
		{"cp /tmp/x.json memory/records/decisions/", true},
		{"mv memory/records/decisions/a.json /tmp/a.json", true},
		{"sed -i 's/a/b/' memory/records/decisions/a.json", true},
		{"rm -f memory/records/index.md", true},
		{"cd memory/records && echo x > decisions/y.json", true},
		{`printf x 2>/dev/null 1> "$ZYLOS_DIR/memory/records/decisions/z.json"`, true},
		{"cat memory/records/decisions/a.json", false},
		{"grep -r wal memory/records/ > /tmp/hits.txt", false},
		{"cp memory/records/decisions/a.json /tmp/", false},
		{"ls -la memory/records 2>&1 | head", false},
		{"jq . memory/records/decisions/a.json", false},
		{"echo x > memory/reference/decisions.md", false},
		{"echo x > memory/records/.staging/in.json", false},
	}
	for _, c := range cases {
		res := testutil.Run{ZylosDir: zylos, Stdin: bashPayload(c.command, zylos)}.Exec(t, "hook", "pre-tool-use")
		if got := strings.Contains(res.Stdout, `"permissionDecision":"deny"`); got != c.deny {
			t.Errorf("%s: deny = %v, want %v (%+v)", c.command, got, c.deny, res)
		}
	}
}

// After a shell command, records changed outside records write are
// validated: an invalid one is quarantined and the agent told.
func TestPostToolUseBashValidates(t *testing.T) {
	zylos := hookHome(t, 0)
	dir := filepath.Join(zylos, "memory", "records", "decisions")
	os.MkdirAll(dir, 0o755)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"category":"decision"}`), 0o644)
	run := testutil.Run{ZylosDir: zylos, Stdin: bashPayload("python3 -c 'write it'", zylos), Env: []string{"ZYLOS_MEMORY_NOW="}}
	res := run.Exec(t, "hook", "post-tool-use")
	if !strings.Contains(res.Stdout, `"decision":"block"`) || !strings.Contains(res.Stdout, bad) {
		t.Fatalf("invalid record not reported: %+v", res)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Fatal("invalid record not quarantined")
	}
	if res := run.Exec(t, "hook", "post-tool-use"); res.Stdout != "" {
		t.Fatalf("the next command reported it again: %+v", res)
	}
}

// The matcher the hooks are registered with covers every tool docs/hooks.md
// says is guarded.
func TestGuardMatcherMatchesReadme(t *testing.T) {
	zylos := hookHome(t, 0)
	data, _ := os.ReadFile(filepath.Join(zylos, ".claude", "settings.local.json"))
	readme, err := os.ReadFile("../docs/hooks.md")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(data), `"matcher": "Write|Edit|MultiEdit|NotebookEdit|Bash"`) != 3 {
		t.Fatalf("PreToolUse, PostToolUse and PostToolUseFailure are not registered for every write tool:\n%s", data)
	}
	if !strings.Contains(string(readme), "`Write\\|Edit\\|MultiEdit\\|NotebookEdit\\|Bash`") {
		t.Error("docs/hooks.md does not give the registered matcher")
	}
}
