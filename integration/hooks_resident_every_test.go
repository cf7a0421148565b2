package integration

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The memory service answers every hook, not only the prompt's: each
// case below runs in its own process on one home and through the service
// on a twin home, and must leave the same answer (stdout, stderr, exit
// status) and the same files, the journal's commits included.

// everyHookCase is one hook invocation on a home: what the agent's tool
// did first (write), then the hook.
type everyHookCase struct {
	name  string
	write func(tb testing.TB, zylos string)
	call  func(zylos string) hookCall
}

func everyHookCases(tb testing.TB) []everyHookCase {
	post := []string{"hook", "post-tool-use"}
	pre := []string{"hook", "pre-tool-use"}
	records := func(zylos string) string { return filepath.Join(zylos, "memory", "records") }
	core := func(zylos string) string { return filepath.Join(zylos, "memory", "core.md") }
	write := func(path func(string) string, text string) func(testing.TB, string) {
		return func(tb testing.TB, zylos string) {
			if err := os.MkdirAll(filepath.Dir(path(zylos)), 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(path(zylos), []byte(text), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	appendTo := func(path func(string) string, text string) func(testing.TB, string) {
		return func(tb testing.TB, zylos string) {
			data, err := os.ReadFile(path(zylos))
			if err != nil {
				tb.Fatal(err)
			}
			write(path, string(data)+text)(tb, zylos)
		}
	}
	writeTool := func(session string, path func(string) string) func(string) hookCall {
		return func(zylos string) hookCall { return hookCall{args: post, stdin: writePayload(session, path(zylos))} }
	}
	transcript := func(zylos string) string { return filepath.Join(filepath.Dir(zylos), "transcript.jsonl") }
	stop := func(session string, active bool, reply string, env ...string) func(string) hookCall {
		return func(zylos string) hookCall {
			return hookCall{args: []string{"hook", "stop"}, env: env, stdin: fmt.Sprintf(
				`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"Stop","stop_hook_active":%v,"last_assistant_message":%q}`,
				session, transcript(zylos), filepath.Dir(zylos), active, reply)}
		}
	}
	gitConfig := func(zylos string) string { return filepath.Join(filepath.Dir(zylos), "gitconfig") }
	decisions := func(zylos string) string { return filepath.Join(zylos, "memory", "reference", "decisions.md") }
	reference := func(zylos string) string { return filepath.Join(zylos, "memory", "reference", "preferences.md") }
	return []everyHookCase{
		{name: "session start", call: func(string) hookCall {
			return hookCall{args: []string{"hook", "session-start"}, stdin: `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`}
		}},
		{name: "session start with the sync trigger from the environment", call: func(string) hookCall {
			return hookCall{args: []string{"hook", "session-start"}, env: []string{"C4_SYNC_THRESHOLD=2"},
				stdin: `{"session_id":"s2","hook_event_name":"SessionStart","source":"startup"}`}
		}},
		{name: "write into the records denied", call: func(zylos string) hookCall {
			return hookCall{args: pre, stdin: fmt.Sprintf(`{"session_id":"s1","tool_name":"Write","tool_input":{"file_path":%q}}`,
				filepath.Join(records(zylos), "decisions", "x.json"))}
		}},
		{name: "write elsewhere allowed", call: func(zylos string) hookCall {
			return hookCall{args: pre, stdin: `{"session_id":"s1","tool_name":"Write","tool_input":{"file_path":"/tmp/elsewhere.txt"}}`}
		}},
		{name: "a shell variable of the hook's environment", call: func(zylos string) hookCall {
			return hookCall{args: pre, env: []string{"REC=" + records(zylos)},
				stdin: `{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"echo x > \"$REC/decisions/y.json\""}}`}
		}},
		{name: "a relative path from the hook's working directory", call: func(zylos string) hookCall {
			return hookCall{args: pre, dir: filepath.Join(zylos, "memory"),
				stdin: `{"session_id":"s1","tool_name":"Edit","tool_input":{"file_path":"records/decisions/z.json"}}`}
		}},
		{name: "a path under the hook's HOME", call: func(zylos string) hookCall {
			return hookCall{args: pre, stdin: `{"session_id":"s1","tool_name":"Write","tool_input":{"file_path":"~/zylos/memory/records/notes/n.json"}}`}
		}},
		{name: "post write elsewhere", call: writeTool("s1", func(string) string { return "/tmp/elsewhere.txt" })},
		{name: "post write of core memory", write: appendTo(core, "- the kafka lag alert fires at 30 seconds\n"),
			call: writeTool("s1", core)},
		// The journal's git reads no one's configuration, the hook's
		// global one included, in the service as in the process.
		{name: "post write with the hook's git configuration", write: func(tb testing.TB, zylos string) {
			write(gitConfig, "[i18n]\n\tcommitEncoding = ISO-8859-1\n")(tb, zylos)
			appendTo(core, "- the lag alert pages the on-call\n")(tb, zylos)
		}, call: func(zylos string) hookCall {
			c := writeTool("s1", core)(zylos)
			c.env = []string{"GIT_CONFIG_GLOBAL=" + gitConfig(zylos)}
			return c
		}},
		{name: "post truncation of core memory", write: write(core, "# Core Memory\n"),
			call: writeTool("s2", core)},
		{name: "post invalid record", write: write(func(z string) string { return filepath.Join(records(z), "decisions", "bad.json") }, `{"title":`),
			call: writeTool("s1", func(z string) string { return filepath.Join(records(z), "decisions", "bad.json") })},
		{name: "post edit of a reference file", write: appendTo(decisions,
			"\n### [2026-03-14] Alert on consumer lag\n- **Decision:** alert at 30 seconds\n- **Context:** kafka\n- **Status:** active\n"),
			call: writeTool("s1", decisions)},
		{name: "post malformed reference entry", write: appendTo(reference, "\n### Editor\n- **Source:** typed\n"),
			call: writeTool("s3", reference)},
		{name: "post shell command", call: func(string) hookCall {
			return hookCall{args: post, stdin: `{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{},"cwd":"/"}`}
		}},
		{name: "stop with a decision to save", write: func(tb testing.TB, zylos string) {
			writeTranscriptJSONL(tb, transcript(zylos), []string{"We decided on SQLite because it is embedded.", strings.Repeat("ok.\n", 5) + "We picked cron."})
		}, call: stop("s1", false, "Done.")},
		{name: "stop retried", call: stop("s1", true, "Done.")},
		{name: "stop captured", call: stop("s4", false, "We picked cron.", "ZYLOS_MEMORY_CAPTURE_PROMPTS=1")},
	}
}

// TestServiceAnswersEveryHookAsTheProcess: each hook answered by the
// service gives the answer and the changes of its own process.
func TestServiceAnswersEveryHookAsTheProcess(t *testing.T) {
	alone, served := residentHome(t), residentHome(t)
	cases := everyHookCases(t)
	inProcess := make([]hookOutcome, len(cases))
	for i, c := range cases {
		inProcess[i] = c.runOn(t, alone, nil)
		if !inProcess[i].goRan {
			t.Fatalf("%s: answered without a service running", c.name)
		}
	}
	startService(t, served)
	watchStarted := time.Now()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.runOn(t, served, func() { betweenWatchPolls(watchStarted) })
			if got.goRan {
				t.Fatalf("the process answered itself (stderr %q)", got.Stderr)
			}
			want := inProcess[i]
			if got.answer != want.answer {
				t.Errorf("the service answered\n%s\nthe process\n%s", got.answer, want.answer)
			}
			if got.changed != want.changed {
				t.Errorf("the service changed\n%s\nthe process\n%s", got.changed, want.changed)
			}
			if got.commit != want.commit {
				t.Errorf("the service committed\n%s\nthe process\n%s", got.commit, want.commit)
			}
		})
	}
	for _, want := range []struct{ name, text string }{
		{"write into the records denied", `"permissionDecision":"deny"`},
		{"a shell variable of the hook's environment", `"permissionDecision":"deny"`},
		{"a relative path from the hook's working directory", `"permissionDecision":"deny"`},
		{"a path under the hook's HOME", `"permissionDecision":"deny"`},
		{"session start with the sync trigger from the environment", "[Action Required]"},
		{"post write of core memory", "Session: s1"},
		{"post truncation of core memory", "restore"},
		{"post write with the hook's git configuration", "Zylos-Tool: Write"},
		{"post invalid record", "moved to"},
		{"post malformed reference entry", "not saved as records"},
		{"stop with a decision to save", `"decision":"block"`},
	} {
		for i, c := range cases {
			if c.name == want.name && !strings.Contains(inProcess[i].answer+inProcess[i].commit, want.text) {
				t.Errorf("%s: %q not in\n%s%s", c.name, want.text, inProcess[i].answer, inProcess[i].commit)
			}
			if c.name == want.name && strings.Contains(inProcess[i].commit, "ISO-8859-1") {
				t.Errorf("%s: the hook's git configuration reached the journal:\n%s", c.name, inProcess[i].commit)
			}
		}
	}
}

// hookOutcome is what one hook left, with the home's path scrubbed: its
// answer, the files it changed (outside the journal's repository, the C4
// database and the service's own state) and the journal commits it made.
type hookOutcome struct {
	answer, changed, commit string
	goRan                   bool
	Stderr                  string
}

func (c everyHookCase) runOn(tb testing.TB, zylos string, beforeWrite func()) hookOutcome {
	tb.Helper()
	before, head := treeOf(tb, zylos), gitIn(tb, filepath.Join(zylos, "memory"), "rev-parse", "HEAD")
	if beforeWrite != nil {
		beforeWrite()
	}
	if c.write != nil {
		c.write(tb, zylos)
	}
	call := c.call(zylos)
	// A deadline no load reaches, on both sides: a hook past its deadline
	// fails open, and the test compares answers, not their speed.
	call.args = append(slices.Clip(call.args), "--timeout", "20s")
	res := call.run(tb, zylos)
	scrub := func(s string) string { return strings.ReplaceAll(s, filepath.Dir(zylos), "$BASE") }
	out := hookOutcome{goRan: res.goRan, Stderr: res.Stderr,
		answer: scrub(fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", res.Code, res.Stdout, res.Stderr))}
	after := treeOf(tb, zylos)
	var changed []string
	for p, sum := range after {
		if before[p] != sum {
			compared, _, _ := strings.Cut(sum, "\x00")
			changed = append(changed, p+" "+compared)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changed = append(changed, p+" removed")
		}
	}
	sort.Strings(changed)
	out.changed = strings.Join(changed, "\n")
	out.commit = scrub(gitIn(tb, filepath.Join(zylos, "memory"), "log", "--format=%s%n%b%n%ad %cd %e%n%T", strings.TrimSpace(head)+"..HEAD"))
	return out
}

// treeOf is each file of the home with a digest of its content (the
// home's path scrubbed) and mode, but for the journal's repository, the
// C4 database and the files only the service writes.
func treeOf(tb testing.TB, zylos string) map[string]string {
	tb.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(zylos, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(zylos, path)
		switch {
		case rel == filepath.Join("memory", ".git"):
			return filepath.SkipDir
		case d.IsDir() || strings.HasPrefix(rel, filepath.Join("comm-bridge", "c4.db")) || serviceOwn(rel):
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if machineBound(rel) {
			data = nil
		}
		sum := sha256.Sum256([]byte(strings.ReplaceAll(string(data), filepath.Dir(zylos), "$BASE")))
		// What is compared, then when it was written (a rewrite with the
		// same content is a change too).
		tree[rel] = fmt.Sprintf("%x %v\x00%d", sum[:6], info.Mode(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return tree
}

// machineBound are the state files whose content names this machine's
// files (inodes) or its wall clock, not the memory: only whether a hook
// wrote them is compared.
func machineBound(rel string) bool {
	base := filepath.Base(rel)
	return base == "bridge-pairs.cache" || base == "bridge-ingest.cache" || base == "records-checked"
}

// serviceOwn are the files under memory/.state the service writes for
// itself: its socket, lock, task database and status, and the search
// index, which it keeps current on its own every few seconds (a hook's
// update of it may fall to the service's).
func serviceOwn(rel string) bool {
	if !strings.HasPrefix(rel, filepath.Join("memory", ".state")+"/") {
		return false
	}
	base := filepath.Base(rel)
	return base == "hooks.sock" || strings.HasPrefix(base, "scheduler") || strings.HasSuffix(base, ".lock") ||
		strings.HasSuffix(base, ".pid") || strings.HasPrefix(base, "status") || strings.HasPrefix(base, "search.db")
}

// betweenWatchPolls waits until half-way between two polls of the
// service's watch of the journal (every 2 s from its start), so that a
// tool's write and its hook are not split by the watch committing the
// write as an external edit first, which would be the service's doing,
// not the hook's.
func betweenWatchPolls(started time.Time) {
	const poll = 2 * time.Second
	since := time.Since(started) % poll
	if wait := poll/2 - since; wait > 0 {
		time.Sleep(wait)
	} else if wait < -poll/4 {
		time.Sleep(poll + wait)
	}
}
