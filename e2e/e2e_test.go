package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
	"github.com/zylos/zylos-memory/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// clientEnv names the Claude Code CLI the test runs (`make e2e` installs it).
const clientEnv = "CLAUDE_CODE_BIN"

func client(t *testing.T) string {
	bin := os.Getenv(clientEnv)
	if bin == "" {
		t.Skipf("%s is not set: the Claude Code CLI is not installed; run `make e2e` to install it and run this test", clientEnv)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s=%s: %v", clientEnv, bin, err)
	}
	return bin
}

// home is a zylos home made by init (prompt capture on), with core memory,
// a decisions log and 31 unsummarized conversations (one over the sync
// threshold).
func home(t *testing.T) (zylos, userHome string) {
	userHome = t.TempDir()
	zylos = filepath.Join(userHome, "zylos")
	testutil.MCPBinary(t) // init registers the MCP server, which runs it
	c4fixture.Create(t, filepath.Join(zylos, "comm-bridge", "c4.db"), 31, 0)
	// A generous timeout: CI machines may be busy, and this is no speed test.
	initRun := testutil.Run{ZylosDir: zylos, Env: []string{"ZYLOS_MEMORY_NOW="}, Timeout: 2 * time.Minute}
	if res := initRun.Exec(t, "init", "--capture-prompts"); res.Code != 0 {
		t.Fatalf("init: %+v", res)
	}
	testutil.WriteFile(t, filepath.Join(zylos, "memory", "core.md"), "# Core\n\nThe owner is Ada; her timezone is Europe/Lisbon. Marker: CORE-7731.\n")
	testutil.WriteFile(t, filepath.Join(zylos, "memory", "reference", "decisions.md"), "# Decisions Log\n\n"+
		"### [2026-03-01] Use SQLite for the conversation log\n- **Decision:** SQLite database with WAL\n"+
		"- **Context:** embedded database, no server\n- **Status:** active\n")
	return zylos, userHome
}

// runClient runs one non-interactive Claude Code session in the home
// against the stand-in and returns its output and debug log; env is added
// to the client's environment, which its hooks inherit.
func runClient(t *testing.T, bin, zylos, userHome, url, prompt string, env ...string) (out, debug string, took time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", prompt, "--output-format", "json", "--debug",
		"--allowedTools", "Read,Write,Edit,Bash,mcp__zylos-memory")
	cmd.Dir = zylos
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + userHome,
		"TZ=UTC",
		"ANTHROPIC_BASE_URL=" + url,
		"ANTHROPIC_API_KEY=sk-ant-stand-in-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took = time.Since(start)
	if err != nil {
		t.Fatalf("claude: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), tail(stderr.String(), 4000))
	}
	debug = stderr.String()
	logs, _ := filepath.Glob(filepath.Join(userHome, ".claude", "debug", "*"))
	for _, l := range logs {
		if data, err := os.ReadFile(l); err == nil {
			debug += string(data)
		}
	}
	reportHookTimes(t, debug)
	return stdout.String(), debug, took
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// reported holds the debug lines already logged: a later session reads
// the earlier sessions' debug files too.
var reported = map[string]bool{}

// reportHookTimes logs what the client's debug output says about our hooks.
func reportHookTimes(t *testing.T, debug string) {
	re := regexp.MustCompile(`Hooks: (\S+) \[.*zylos-memory.* hook (\S+)\] finished with status (\d+) \((\d+ms)\)`)
	for _, line := range strings.Split(debug, "\n") {
		if m := re.FindStringSubmatch(line); m != nil && !reported[line] {
			reported[line] = true
			t.Logf("hook %s (%s): status %s, %s", m[1], m[2], m[3], m[4])
		}
	}
}

func TestClaudeCodeEndToEnd(t *testing.T) {
	bin := client(t)
	zylos, userHome := home(t)
	records := filepath.Join(zylos, "memory", "records")
	decisions := filepath.Join(zylos, "memory", "reference", "decisions.md")
	final := "We decided on SQLite because it is embedded.\nWe chose cron over a loop because it is simpler."
	script := []reply{
		{tool: "Write", input: map[string]any{"file_path": filepath.Join(records, "decisions", "direct.json"), "content": "{}"}},
		{tool: "Bash", input: map[string]any{"command": "echo '{}' > memory/records/decisions/shell.json", "description": "write a record"}},
		{tool: "Bash", input: map[string]any{"command": "ls memory", "description": "list memory"}},
		{tool: "Bash", input: map[string]any{"command": `sh -c 'mkdir -p memory/records/decisions && printf "{}" > memory/records/decisions/sneaky.json'`,
			"description": "a write the guard cannot see"}},
		{tool: "Read", input: map[string]any{"file_path": decisions}},
		{tool: "Edit", input: map[string]any{"file_path": decisions, "old_string": "- **Status:** active",
			"new_string": "- **Status:** active\n- **Note:** edited by hand in the e2e test"}},
		{text: final},
		{text: "Saved what mattered."},
	}
	api := startStandIn(t, script)
	out, _, took := runClient(t, bin, zylos, userHome, api.url, "Why did we pick the sqlite database? Tidy the records.")
	t.Logf("session 1 took %v; result: %s", took, tail(out, 500))
	bodies := api.mainBodies()
	if len(bodies) == 0 {
		t.Fatal("no request reached the stand-in")
	}
	first, last := bodies[0], bodies[len(bodies)-1]

	// What reaches the model: core memory, recall, the trigger once.
	if !strings.Contains(first, "CORE-7731") {
		t.Error("core memory did not reach the model")
	}
	if !strings.Contains(first, "memory-context") {
		t.Error("prompt-time recall did not reach the model")
	}
	if n := strings.Count(last, "[Action Required]"); n != 1 {
		t.Errorf("the sync trigger reached the model %d times, want once", n)
	}
	// The guard: a Write and a shell redirection into the records are
	// denied, a listing and a hand edit of decisions.md go through.
	if !strings.Contains(last, "Direct writes to the memory records directory are blocked") {
		t.Error("the Write into the records was not denied")
	}
	if !strings.Contains(last, "Shell commands may read the memory records directory but not write into it") {
		t.Error("the shell write into the records was not denied")
	}
	for _, f := range []string{"direct.json", "shell.json"} {
		if _, err := os.Stat(filepath.Join(records, "decisions", f)); !os.IsNotExist(err) {
			t.Errorf("%s was written past the guard", f)
		}
	}
	if !strings.Contains(last, `archive\ncore.md`) {
		t.Error("the listing of memory/ did not go through")
	}
	// What the guard could not see is validated after the command.
	if !strings.Contains(last, "Invalid memory records were written outside") {
		t.Error("the invalid record written by a nested shell was not reported")
	}
	if q, _ := filepath.Glob(filepath.Join(records, "decisions", "sneaky.json.invalid.*")); len(q) != 1 {
		t.Error("the invalid record written by a nested shell was not quarantined")
	}
	if data, _ := os.ReadFile(decisions); !strings.Contains(string(data), "edited by hand in the e2e test") {
		t.Error("the hand edit of reference/decisions.md did not go through")
	}
	// Stop blocked once, with the JSON answer, and did not loop: the
	// final reply is followed by exactly one more request, which carries
	// the block's reason, and the session ends.
	const reason = "The following items should be saved as memories before stopping"
	if n := len(bodies); n != len(script) || strings.Contains(bodies[n-2], reason) || !strings.Contains(last, reason) {
		t.Errorf("%d requests of the agent loop, want %d, the last one alone carrying the block", n, len(script))
	}
	if !strings.Contains(last, "--zylos-dir "+zylos+" records write") {
		t.Error("the stop advice does not name the home")
	}
	if _, err := os.Stat(filepath.Join(zylos, ".claude", ".stop_hook_active")); !os.IsNotExist(err) {
		t.Error("a stop flag was left in the working directory")
	}
	states, _ := filepath.Glob(filepath.Join(zylos, "memory", ".state", "sessions", "*", "stop-blocked"))
	if len(states) != 0 {
		t.Errorf("stop flags left after the session: %v", states)
	}

	// Prompt capture: the prompt and the final reply (Claude Code's
	// last_assistant_message) are in C4.
	fetch := testutil.Run{ZylosDir: zylos}.Exec(t, "c4", "fetch", "--begin", "32", "--end", "100").Stdout
	for _, want := range []string{"IN (claude-code:", "Why did we pick the sqlite database?", "OUT (claude-code:", "We decided on SQLite"} {
		if !strings.Contains(fetch, want) {
			t.Errorf("C4 lacks %q:\n%s", want, fetch)
		}
	}

	// A second session right after: the trigger again once (a new
	// session), and its stop is not silenced by the first one's block.
	api2 := startStandIn(t, []reply{{text: final}, {text: "Saved."}})
	_, _, took2 := runClient(t, bin, zylos, userHome, api2.url, "Anything else?")
	t.Logf("session 2 took %v", took2)
	bodies2 := api2.mainBodies()
	last2 := bodies2[len(bodies2)-1]
	if len(bodies2) != 2 || !strings.Contains(last2, reason) {
		t.Errorf("second session: %d requests, want 2, the second carrying the block", len(bodies2))
	}
	if n := strings.Count(last2, "[Action Required]"); n != 1 {
		t.Errorf("second session: the sync trigger reached the model %d times, want once", n)
	}
}

// TestClaudeCodeWithTheService runs a session in a home whose memory
// service is up, as `make run` leaves it: every hook is answered by the
// service (hooks/resident) and says what the process would.
func TestClaudeCodeWithTheService(t *testing.T) {
	bin := client(t)
	zylos, userHome := home(t)
	// A hook whose Go runtime started prints its package inits on stderr,
	// which Claude Code's debug log shows; one the service answered does
	// not start it. A session before the service starts shows that
	// GODEBUG reaches the hooks, or this test could not tell who answered.
	// A hook that printed nothing has no "success:" line, only the line
	// saying it finished.
	stderrOf := func(debug, event string) string {
		ran := false
		for _, line := range strings.Split(debug, "\n") {
			if _, rest, ok := strings.Cut(line, ` (`+event+`) success:`); ok && strings.Contains(line, `"Hook `+event) {
				_, stderr, _ := strings.Cut(rest, `stderr:`)
				return stderr
			}
			ran = ran || strings.Contains(line, "Hooks: "+event+" [") && strings.Contains(line, "] finished with status")
		}
		if !ran {
			t.Fatalf("no %s hook in the debug log", event)
		}
		return ""
	}
	alone := startStandIn(t, []reply{{text: "Nothing new."}, {text: "Nothing new."}})
	_, debug, _ := runClient(t, bin, zylos, userHome, alone.url, "hello", "GODEBUG=inittrace=1")
	if !strings.Contains(stderrOf(debug, "SessionStart"), "init runtime") {
		t.Fatal("GODEBUG did not reach the hooks: this test cannot tell who answered")
	}
	// runClient reads every debug file: the next session's alone, then.
	if err := os.RemoveAll(filepath.Join(userHome, ".claude", "debug")); err != nil {
		t.Fatal(err)
	}
	service := exec.Command(testutil.Binary(t), "scheduler", "run")
	service.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + userHome, "TZ=UTC", "ZYLOS_DIR=" + zylos}
	if err := service.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { service.Process.Kill(); service.Wait() })
	sock := filepath.Join(zylos, "memory", ".state", "hooks.sock")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the service made no %s", sock)
		}
	}
	api := startStandIn(t, []reply{{text: "We decided on SQLite because it is embedded."}, {text: "Saved."}})
	_, debug, took := runClient(t, bin, zylos, userHome, api.url, "Why did we pick the sqlite database?", "GODEBUG=inittrace=1")
	t.Logf("session took %v", took)
	for _, event := range []string{"SessionStart", "UserPromptSubmit", "Stop"} {
		if s := stderrOf(debug, event); strings.Contains(s, "init runtime") {
			t.Errorf("the %s hook answered in its own process: %.300s", event, s)
		}
	}
	bodies := api.mainBodies()
	if len(bodies) == 0 {
		t.Fatal("no request reached the stand-in")
	}
	if first := bodies[0]; !strings.Contains(first, "memory-context") || !strings.Contains(first, "Use SQLite for the conversation log") {
		t.Error("the service's recall did not reach the model")
	}
	if n := strings.Count(bodies[len(bodies)-1], "[Action Required]"); n != 1 {
		t.Errorf("the sync trigger reached the model %d times, want once", n)
	}
	fetch := testutil.Run{ZylosDir: zylos}.Exec(t, "c4", "fetch", "--begin", "32", "--end", "100").Stdout
	if !strings.Contains(fetch, "Why did we pick the sqlite database?") {
		t.Errorf("the service did not capture the prompt in C4:\n%s", fetch)
	}
}
