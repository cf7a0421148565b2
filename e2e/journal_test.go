package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestClaudeCodeJournal: the agent truncates core.md with Write; the
// PostToolUse hook commits it attributed to the session and tells the
// agent what left. A zylos-memory command the agent runs with Bash is
// committed under the same session: Claude Code gives its shell commands
// the session id in CLAUDE_CODE_SESSION_ID.
func TestClaudeCodeJournal(t *testing.T) {
	bin := client(t)
	zylos, userHome := home(t)
	mem := filepath.Join(zylos, "memory")
	ingest := fmt.Sprintf("printf '\\n### Journal e2e\\n- **Status:** active\\n- **Updated:** 2026-03-15\\n- **Notes:** added by the agent\\n' >> memory/reference/projects.md && %s --zylos-dir %s records ingest",
		testutil.Binary(t), zylos)
	script := []reply{
		{tool: "Write", input: map[string]any{"file_path": filepath.Join(mem, "core.md"), "content": "# Core\n"}},
		{tool: "Bash", input: map[string]any{"command": ingest, "description": "add a project and ingest it"}},
		{text: "Done."},
		{text: "Saved."},
	}
	api := startStandIn(t, script)
	runClient(t, bin, zylos, userHome, api.url, "Shorten core memory and note the project.")
	bodies := api.mainBodies()
	// The test's own edit of core.md after init is an external edit,
	// committed before the agent's tool call: the Write is measured
	// against it.
	told := regexp.MustCompile(`This change removed memory: 2 lines left memory/core.md \(\\"The owner is Ada; her timezone is Europe/Lisbon. Marker: CORE-7731.\\"\); if that was not meant, restore it with: \S+ --zylos-dir \S+ restore memory/core.md --at [0-9a-f]{10}\.`)
	if len(bodies) < 2 || !told.MatchString(bodies[1]) {
		i := strings.Index(bodies[len(bodies)-1], "removed memory")
		t.Errorf("the loss was not told to the agent: %d\n%s", i, bodies[len(bodies)-1][max(0, i-300):max(0, i)+600])
	}
	log, err := exec.Command("git", "-C", mem, "log", "--format=%s|%(trailers:key=Zylos-Source,valueonly,separator=)|%(trailers:key=Zylos-Session,valueonly,separator=)|%(trailers:key=Zylos-Tool,valueonly,separator=)").Output()
	if err != nil {
		t.Fatal(err)
	}
	var writeSession, cmdSession string
	for _, line := range strings.Split(string(log), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 4 {
			continue
		}
		switch {
		case f[0] == "Write: update core.md" && f[1] == "hook" && f[3] == "Write":
			writeSession = f[2]
		case strings.HasPrefix(f[0], "records ingest: ") && strings.Contains(f[0], "create project journal-e2e") && f[1] == "command":
			cmdSession = f[2]
		}
	}
	if writeSession == "" || cmdSession != writeSession {
		t.Errorf("the Write's session %q, the Bash command's %q; want the same, non-empty:\n%s", writeSession, cmdSession, log)
	}
}

// TestClaudeCodeJournalOneTurnTwoTools: in one turn the agent runs a shell
// command that writes a note into memory and edits core.md; each change is
// committed under its own tool call (Zylos-Tool-Use), the note under the
// Bash call alone, core.md under the Edit alone.
func TestClaudeCodeJournalOneTurnTwoTools(t *testing.T) {
	bin := client(t)
	zylos, userHome := home(t)
	mem := filepath.Join(zylos, "memory")
	core := filepath.Join(mem, "core.md")
	script := []reply{
		{tool: "Read", input: map[string]any{"file_path": core}},
		{tool: "Bash", input: map[string]any{"command": "printf 'written by the shell\\n' > " + filepath.Join(mem, "shell-note.md"), "description": "write a note"},
			with: []reply{{tool: "Edit", input: map[string]any{"file_path": core, "old_string": "Marker: CORE-7731.", "new_string": "Marker: CORE-7731, edited."}}}},
		{text: "Done."},
		{text: "Saved."},
	}
	api := startStandIn(t, script)
	runClient(t, bin, zylos, userHome, api.url, "Write a note and retitle core memory.")
	log, err := exec.Command("git", "-C", mem, "log", "--name-only", "--format=%x1e%s|%(trailers:key=Zylos-Tool,valueonly,separator=)|%(trailers:key=Zylos-Tool-Use,valueonly,separator=)").Output()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{} // tool: the files of its commit
	ids := map[string]string{}
	for _, rec := range strings.Split(string(log), "\x1e") {
		head, files, _ := strings.Cut(strings.TrimSpace(rec), "\n")
		f := strings.Split(head, "|")
		if len(f) != 3 || f[2] == "" {
			continue
		}
		found[f[1]] = strings.Join(strings.Fields(files), " ")
		ids[f[1]] = f[2]
	}
	if found["Bash"] != "shell-note.md" || found["Edit"] != "core.md" || ids["Bash"] == ids["Edit"] {
		t.Errorf("commits of the turn: files %v, tool calls %v\n%s", found, ids, log)
	}
}
