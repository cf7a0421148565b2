package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// An undo given an empty or blank session (what --session
// "$CLAUDE_CODE_SESSION_ID" becomes when the variable is unset) or a
// session with no change is refused with exit 2 in one line, and changes
// nothing: not a file, not the journal.
func TestJournalUndoRefusesNoSession(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	writeThroughHook(t, r, "sess-a", filepath.Join(mem, "notes-a.md"), "from a\n")
	head := gitIn(t, mem, "rev-parse", "HEAD")
	core, _ := os.ReadFile(filepath.Join(mem, "core.md"))
	for _, session := range []string{"", "   ", "sess-unknown"} {
		for _, dry := range []bool{false, true} {
			args := []string{"undo", "--session", session}
			if dry {
				args = append(args, "--dry-run")
			}
			res := r.Exec(t, args...)
			if res.Code != 2 || res.Stdout != "" || strings.Count(res.Stderr, "\n") != 1 || !strings.HasPrefix(res.Stderr, "zylos-memory: undo: ") {
				t.Errorf("undo --session %q (dry %v): exit %d\n%s%s", session, dry, res.Code, res.Stdout, res.Stderr)
			}
		}
	}
	if gitIn(t, mem, "rev-parse", "HEAD") != head {
		t.Error("a refused undo committed")
	}
	if data, _ := os.ReadFile(filepath.Join(mem, "core.md")); string(data) != string(core) {
		t.Error("a refused undo changed core.md")
	}
	if _, err := os.Stat(filepath.Join(mem, "notes-a.md")); err != nil {
		t.Error("a refused undo deleted the session's file")
	}
}

// --dry-run says what an undo would do and does nothing; the undo then
// does it; a second undo says the session is undone already (exit 2),
// never blaming the first undo as a later change in the way.
func TestJournalUndoDryRunThenTwice(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	writeThroughHook(t, r, "sess-a", filepath.Join(mem, "notes-a.md"), "from a\n")
	writeThroughHook(t, r, "sess-b", filepath.Join(mem, "notes-b.md"), "from b\n")
	head := gitIn(t, mem, "rev-parse", "HEAD")
	res := r.Exec(t, "undo", "--session", "sess-a", "--dry-run")
	if res.Code != 0 || !strings.Contains(res.Stdout, "would revert ") || !strings.Contains(res.Stdout, "would delete memory/notes-a.md\n") ||
		strings.Contains(res.Stdout, "notes-b.md") {
		t.Fatalf("dry run: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if gitIn(t, mem, "rev-parse", "HEAD") != head {
		t.Error("a dry run committed")
	}
	if _, err := os.Stat(filepath.Join(mem, "notes-a.md")); err != nil {
		t.Error("a dry run deleted the file")
	}
	if res := r.Exec(t, "undo", "--session", "sess-a"); res.Code != 0 || !strings.Contains(res.Stdout, "undid the 1 change of session sess-a") {
		t.Fatalf("undo: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	res = r.Exec(t, "undo", "--session", "sess-a")
	if res.Code != 2 || !strings.Contains(res.Stderr, `session "sess-a" is undone already`) || strings.Count(res.Stderr, "\n") != 1 {
		t.Fatalf("second undo: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	// A change the session makes after its undo is undone on its own.
	writeThroughHook(t, r, "sess-a", filepath.Join(mem, "notes-c.md"), "later\n")
	res = r.Exec(t, "undo", "--session", "sess-a")
	if res.Code != 0 || strings.Count(res.Stdout, "reverted ") != 1 || !strings.Contains(res.Stdout, "delete notes-c.md") {
		t.Fatalf("undo after more changes: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(mem, "notes-b.md")); err != nil {
		t.Error("undo deleted another session's file")
	}
}

// hostileHome is an initialised home whose user has a ~/.gitconfig that
// signs every commit (with a key that does not exist), runs slow hooks
// that rewrite commit messages, prints diffs without a/ and b/, ignores
// every markdown file, and an environment that makes pathspecs literal
// and adds configuration of its own.
func hostileHome(t *testing.T) (string, testutil.Run, string) {
	t.Helper()
	base := t.TempDir()
	hooksDir := filepath.Join(base, "githooks")
	os.MkdirAll(hooksDir, 0o755)
	marker := filepath.Join(base, "hook-ran")
	for _, h := range []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change"} {
		script := "#!/bin/sh\necho " + h + " >> " + marker + "\nsleep 1\n[ -f \"$1\" ] && echo 'Broken-By: a user hook' >> \"$1\"\nexit 0\n"
		os.WriteFile(filepath.Join(hooksDir, h), []byte(script), 0o755)
	}
	excludes := filepath.Join(base, "excludes")
	os.WriteFile(excludes, []byte("*.md\n"), 0o644)
	os.WriteFile(filepath.Join(base, ".gitconfig"), []byte("[commit]\n\tgpgSign = true\n[user]\n\tsigningkey = 0000000000000000\n"+
		"[core]\n\thooksPath = "+hooksDir+"\n\texcludesFile = "+excludes+"\n[diff]\n\tmnemonicPrefix = true\n\tnoprefix = true\n"+
		"[status]\n\tshowUntrackedFiles = no\n"), 0o644)
	zylos := filepath.Join(base, "zylos")
	r := testutil.Run{ZylosDir: zylos, Env: []string{"GIT_LITERAL_PATHSPECS=1", "GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=" + hooksDir, "GIT_INDEX_FILE=" + filepath.Join(base, "elsewhere-index")}}
	if res := r.Exec(t, "init"); res.Code != 0 {
		t.Fatalf("init: %+v", res)
	}
	return zylos, r, marker
}

// The journal's git is its own: a hostile ~/.gitconfig and environment
// neither stop a commit nor reach it. Every change is committed, with its
// trailers; the loss check still fires; a file that a .gitignore in
// memory/ and the user's excludes file both ignore is still kept, so it
// can be restored; no user hook runs; editors' leftovers stay out.
func TestJournalHostileGitConfig(t *testing.T) {
	zylos, r, marker := hostileHome(t)
	mem := filepath.Join(zylos, "memory")
	if n := strings.Count(gitIn(t, mem, "log", "--format=%H"), "\n"); n != 1 {
		t.Fatalf("init made %d commits, want 1", n)
	}
	os.WriteFile(filepath.Join(mem, ".gitignore"), []byte("notes-*.md\nreference/\n"), 0o644)
	notes := filepath.Join(mem, "notes-x.md")
	writeThroughHook(t, r, "sess-h", notes, "first\nsecond\n")
	os.WriteFile(filepath.Join(mem, "core.md~"), []byte("backup"), 0o644)
	os.WriteFile(filepath.Join(mem, ".core.md.swp"), []byte("swap"), 0o644)
	os.WriteFile(filepath.Join(mem, ".#core.md"), []byte("lock"), 0o644)
	core := filepath.Join(mem, "core.md")
	before, _ := os.ReadFile(core)
	os.WriteFile(core, before[:len(before)/3], 0o644)
	r.Stdin = writePayload("sess-h", core)
	res := r.Exec(t, "hook", "post-tool-use")
	r.Stdin = ""
	if res.Code != 0 || !strings.Contains(res.Stdout, "This change removed memory: ") || !strings.Contains(res.Stdout, "restore memory/core.md --at ") {
		t.Fatalf("the loss was not told: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	res = r.Exec(t, "history", "--session", "sess-h")
	if res.Code != 0 || strings.Count(res.Stdout, " hook sess-h ") != 2 || !strings.Contains(res.Stdout, "create notes-x.md") {
		t.Fatalf("history of the session: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	tracked := gitIn(t, mem, "ls-files")
	if !strings.Contains(tracked, "notes-x.md\n") || !strings.Contains(tracked, ".gitignore\n") {
		t.Errorf("an ignored memory file is not kept:\n%s", tracked)
	}
	for _, leftover := range []string{"core.md~", ".core.md.swp", ".#core.md"} {
		if strings.Contains(tracked, leftover+"\n") {
			t.Errorf("an editor's leftover is kept: %s", leftover)
		}
	}
	if body := gitIn(t, mem, "log", "-1", "--format=%B"); strings.Contains(body, "Broken-By") || !strings.Contains(body, "Zylos-Session: sess-h") {
		t.Errorf("the commit message:\n%s", body)
	}
	os.WriteFile(notes, []byte("changed\n"), 0o644)
	first := strings.Fields(gitIn(t, mem, "log", "--format=%H", "--", "notes-x.md"))
	res = r.Exec(t, "restore", "memory/notes-x.md", "--at", first[len(first)-1])
	if data, _ := os.ReadFile(notes); res.Code != 0 || string(data) != "first\nsecond\n" {
		t.Fatalf("restore of an ignored file: exit %d\n%s%s\nfile %q", res.Code, res.Stdout, res.Stderr, data)
	}
	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("a user's git hook ran: %s", data)
	}
}

// A file name with a newline is committed, and the stamp keeps it: the
// next look at the tree finds nothing pending.
func TestJournalNewlineFileName(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	odd := filepath.Join(mem, "two\nlines.md")
	writeThroughHook(t, r, "sess-n", odd, "text\n")
	if got := gitIn(t, mem, "ls-files", "-z"); !strings.Contains(got, "two\nlines.md\x00") {
		t.Fatalf("the file is not kept: %q", got)
	}
	res := r.Exec(t, "doctor")
	if strings.Contains(res.Stdout, "journal pending") {
		t.Errorf("doctor sees pending changes after the commit:\n%s", res.Stdout)
	}
}

// A memory/.git adopted from before that tracks .state/ stops tracking it
// in the journal's first commit; the files stay on disk.
func TestJournalAdoptedRepositoryStopsTrackingState(t *testing.T) {
	zylos := filepath.Join(t.TempDir(), "zylos")
	mem := filepath.Join(zylos, "memory")
	os.MkdirAll(filepath.Join(mem, ".state"), 0o755)
	os.WriteFile(filepath.Join(mem, ".state", "tracked.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(mem, "core.md"), []byte("# Core\n"), 0o644)
	gitIn(t, mem, "init", "-q")
	gitIn(t, mem, "add", "-A")
	gitIn(t, mem, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "by hand")
	r := testutil.Run{ZylosDir: zylos}
	if res := r.Exec(t, "init"); res.Code != 0 {
		t.Fatalf("init: %+v", res)
	}
	if got := gitIn(t, mem, "ls-files", ".state"); got != "" {
		t.Errorf("still tracked after the first journal commit:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(mem, ".state", "tracked.json")); err != nil {
		t.Errorf("the state file is gone: %v", err)
	}
	if got := gitIn(t, mem, "log", "--format=%s"); !strings.HasSuffix(got, "by hand\n") {
		t.Errorf("the history is not kept:\n%s", got)
	}
}

// toolCallPayload is Claude Code's input to a tool call's hook: event
// PreToolUse, PostToolUse or PostToolUseFailure, with the call's id.
func toolCallPayload(event, session, id, tool, path string) string {
	input := `{"command":"true"}`
	if path != "" {
		input = fmt.Sprintf(`{"file_path":%q,"old_string":"a","new_string":"b"}`, path)
	}
	return fmt.Sprintf(`{"hook_event_name":%q,"session_id":%q,"tool_use_id":%q,"tool_name":%q,"tool_input":%s,"tool_response":{},"cwd":"/"}`,
		event, session, id, tool, input)
}

// toolHook runs the hook of event for one tool call.
func toolHook(t *testing.T, r testutil.Run, event, session, id, tool, path string) testutil.Result {
	t.Helper()
	command := map[string]string{"PreToolUse": "pre-tool-use", "PostToolUse": "post-tool-use", "PostToolUseFailure": "post-tool-use-failure"}[event]
	r.Stdin = toolCallPayload(event, session, id, tool, path)
	res := r.Exec(t, "hook", command)
	if res.Code != 0 {
		t.Fatalf("hook %s: %+v", command, res)
	}
	return res
}

// commitsOf lists the journal's commits, newest first, as
// "subject|session|tool-use".
func commitsOf(t *testing.T, mem string) []string {
	t.Helper()
	out := gitIn(t, mem, "log", "--format=%s|%(trailers:key=Zylos-Session,valueonly,separator=)|%(trailers:key=Zylos-Tool-Use,valueonly,separator=)")
	return strings.Split(strings.TrimSpace(out), "\n")
}

// The user edits core.md and preferences.md by hand; then the agent runs
// a shell command that writes a note. The hand edits are an external
// edit, the note is the call's; undoing the session removes the note and
// keeps the user's work.
func TestJournalHandEditThenShellThenUndo(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	core := filepath.Join(mem, "core.md")
	prefs := filepath.Join(mem, "reference", "preferences.md")
	appendFile(t, core, "\n- the user's own line\n")
	appendFile(t, prefs, "\n- prefers tabs\n")
	toolHook(t, r, "PreToolUse", "sess-a", "toolu_01", "Bash", "")
	os.WriteFile(filepath.Join(mem, "notes.md"), []byte("the agent's note\n"), 0o644)
	toolHook(t, r, "PostToolUse", "sess-a", "toolu_01", "Bash", "")
	got := commitsOf(t, mem)
	if len(got) < 3 || got[0] != "Bash: create notes.md|sess-a|toolu_01" || !strings.HasPrefix(got[1], "external edit: update core.md, update reference/preferences.md||") {
		t.Fatalf("commits:\n%s", strings.Join(got, "\n"))
	}
	if res := r.Exec(t, "undo", "--session", "sess-a"); res.Code != 0 {
		t.Fatalf("undo: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(mem, "notes.md")); !os.IsNotExist(err) {
		t.Error("the agent's note is still there")
	}
	for path, line := range map[string]string{core: "the user's own line", prefs: "prefers tabs"} {
		if data, _ := os.ReadFile(path); !strings.Contains(string(data), line) {
			t.Errorf("the undo took the user's edit of %s", path)
		}
	}
}

// Two Edit calls of one turn run side by side: each file goes to the
// call that named it, and undoing the session reverts both.
func TestJournalParallelEditsEachTheirOwn(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	core := filepath.Join(mem, "core.md")
	prefs := filepath.Join(mem, "reference", "preferences.md")
	before := map[string][]byte{}
	for _, p := range []string{core, prefs} {
		before[p], _ = os.ReadFile(p)
	}
	toolHook(t, r, "PreToolUse", "sess-p", "toolu_a", "Edit", core)
	toolHook(t, r, "PreToolUse", "sess-p", "toolu_b", "Edit", prefs)
	appendFile(t, core, "- edited by call a\n")
	appendFile(t, prefs, "- edited by call b\n")
	toolHook(t, r, "PostToolUse", "sess-p", "toolu_a", "Edit", core)
	toolHook(t, r, "PostToolUse", "sess-p", "toolu_b", "Edit", prefs)
	got := commitsOf(t, mem)
	if len(got) < 2 || got[0] != "Edit: update reference/preferences.md|sess-p|toolu_b" || got[1] != "Edit: update core.md|sess-p|toolu_a" {
		t.Fatalf("commits:\n%s", strings.Join(got, "\n"))
	}
	if res := r.Exec(t, "undo", "--session", "sess-p"); res.Code != 0 {
		t.Fatalf("undo: %+v", res)
	}
	for p, want := range before {
		if data, _ := os.ReadFile(p); string(data) != string(want) {
			t.Errorf("%s after the undo:\n%s", p, data)
		}
	}
}

// While a shell command of one session runs, another session's prompt
// does not take what the shell is writing as an external edit; the
// shell's PostToolUse (a failure here) takes it.
func TestJournalOpenShellKeepsItsWindow(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	toolHook(t, r, "PreToolUse", "sess-s", "toolu_sh", "Bash", "")
	os.WriteFile(filepath.Join(mem, "build.md"), []byte("half written\n"), 0o644)
	r.Stdin = `{"hook_event_name":"UserPromptSubmit","session_id":"sess-other","prompt":"hello","cwd":"/"}`
	if res := r.Exec(t, "hook", "user-prompt-submit"); res.Code != 0 {
		t.Fatalf("prompt: %+v", res)
	}
	toolHook(t, r, "PostToolUseFailure", "sess-s", "toolu_sh", "Bash", "")
	if got := commitsOf(t, mem); got[0] != "Bash: create build.md|sess-s|toolu_sh" {
		t.Fatalf("commits:\n%s", strings.Join(got, "\n"))
	}
}

// An editor's change made outside any tool call is committed by the next
// hook of any kind, before anything of the agent's.
func TestJournalEveryHookCommitsOutsideEditsFirst(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	appendFile(t, filepath.Join(mem, "core.md"), "- typed in an editor\n")
	r.Stdin = `{"hook_event_name":"UserPromptSubmit","session_id":"sess-u","prompt":"hello","cwd":"/"}`
	if res := r.Exec(t, "hook", "user-prompt-submit"); res.Code != 0 {
		t.Fatalf("prompt: %+v", res)
	}
	if got := commitsOf(t, mem); got[0] != "external edit: update core.md||" {
		t.Fatalf("commits:\n%s", strings.Join(got, "\n"))
	}
}

// A home reached through a symlink (--zylos-dir is a link) while the
// Write tool reports the real path: the journal sees the change the guard
// and the ingest see, commits it and tells the loss.
func TestJournalSymlinkedHome(t *testing.T) {
	real, _ := journalHome(t)
	link := filepath.Join(t.TempDir(), "home-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	r := testutil.Run{ZylosDir: link}
	core := filepath.Join(real, "memory", "core.md")
	data, _ := os.ReadFile(core)
	os.WriteFile(core, []byte(strings.Join(strings.SplitAfter(string(data), "\n")[:2], "")), 0o644)
	res := toolHook(t, r, "PostToolUse", "sess-l", "toolu_l", "Write", core)
	if !strings.Contains(res.Stdout, "This change removed memory: ") {
		t.Fatalf("no loss told: %+v", res)
	}
	if got := commitsOf(t, filepath.Join(real, "memory")); got[0] != "Write: update core.md|sess-l|" {
		t.Fatalf("commits:\n%s", strings.Join(got, "\n"))
	}
}

// The user checks out an old revision to look at it: the agent's change
// made meanwhile goes to the journal's branch, never onto the detached
// HEAD; doctor says where memory/ is checked out; back on the branch the
// change is in the file and in history.
func TestJournalDetachedHead(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	first := strings.TrimSpace(gitIn(t, mem, "rev-parse", "HEAD"))
	writeThroughHook(t, r, "sess-1", filepath.Join(mem, "notes.md"), "kept on the branch\n")
	gitIn(t, mem, "checkout", "-q", first)
	core := filepath.Join(mem, "core.md")
	appendFile(t, core, "- the agent's line while detached\n")
	toolHook(t, r, "PreToolUse", "sess-2", "toolu_d", "Edit", core)
	toolHook(t, r, "PostToolUse", "sess-2", "toolu_d", "Edit", core)
	if head := strings.TrimSpace(gitIn(t, mem, "rev-parse", "HEAD")); head != first {
		t.Fatalf("HEAD moved to %s", head)
	}
	if got := strings.TrimSpace(gitIn(t, mem, "log", "-1", "--format=%s", "master")); got != "Edit: update core.md" {
		t.Fatalf("the branch's last commit: %q", got)
	}
	if res := r.Exec(t, "doctor"); !strings.Contains(res.Stdout, "warn  journal checkout: memory/ is checked out at "+first[:10]) {
		t.Errorf("doctor:\n%s", res.Stdout)
	}
	gitIn(t, mem, "checkout", "-q", "-f", "master")
	if data, _ := os.ReadFile(core); !strings.Contains(string(data), "the agent's line while detached") {
		t.Errorf("core.md back on the branch:\n%s", data)
	}
	if data, err := os.ReadFile(filepath.Join(mem, "notes.md")); err != nil || string(data) != "kept on the branch\n" {
		t.Errorf("notes.md back on the branch: %q %v", data, err)
	}
	if res := r.Exec(t, "history", "--session", "sess-2"); !strings.Contains(res.Stdout, "Edit: update core.md") {
		t.Errorf("history:\n%s%s", res.Stdout, res.Stderr)
	}
}

// While another program holds the repository (its index, or its
// branch), three sessions' changes stay apart: they wait in a queue with
// their authors (doctor says how many, since when and why) and are
// committed in order, each as its own, by the next commit once it is
// free; the index is in step after.
func TestJournalBusyRepositoryKeepsSessionsApart(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	hold := func(name string) func() {
		p := filepath.Join(mem, ".git", name)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Minute)
		os.Chtimes(p, old, old)
		return func() { f.Close(); os.Remove(p) }
	}
	write := func(session, name string) {
		p := filepath.Join(mem, name)
		toolHook(t, r, "PreToolUse", session, "toolu_"+session, "Write", p)
		os.WriteFile(p, []byte("by "+session+"\n"), 0o644)
		toolHook(t, r, "PostToolUse", session, "toolu_"+session, "Write", p)
	}

	release := hold("index.lock")
	write("sess-a", "a.md")
	write("sess-b", "b.md")
	release()
	write("sess-c", "c.md")
	if got := commitsOf(t, mem); got[0] != "Write: create c.md|sess-c|toolu_sess-c" || got[1] != "Write: create b.md|sess-b|toolu_sess-b" || got[2] != "Write: create a.md|sess-a|toolu_sess-a" {
		t.Fatalf("with the index held:\n%s", strings.Join(got, "\n"))
	}
	if res := r.Exec(t, "history", "--limit", "1"); res.Code != 0 {
		t.Fatal(res)
	}
	if st := gitIn(t, mem, "status", "--porcelain"); st != "" {
		t.Errorf("the index is not in step after a command:\n%s", st)
	}

	release = hold("refs/heads/master.lock")
	write("sess-d", "d.md")
	write("sess-e", "e.md")
	res := r.Exec(t, "doctor")
	if !strings.Contains(res.Stdout, "warn  journal queue: 2 changes wait to be committed with their authors") ||
		!strings.Contains(res.Stdout, "warn  journal blocked: commits have waited since ") {
		t.Errorf("doctor while the branch is held:\n%s", res.Stdout)
	}
	// The user edits d.md while the change waits: the queued commit keeps
	// sess-d's text, and the edit is an external edit of its own.
	appendFile(t, filepath.Join(mem, "d.md"), "the user's line\n")
	release()
	write("sess-f", "f.md")
	got := commitsOf(t, mem)
	if got[0] != "Write: create f.md|sess-f|toolu_sess-f" || got[1] != "external edit: update d.md||" ||
		got[2] != "Write: create e.md|sess-e|toolu_sess-e" || got[3] != "Write: create d.md|sess-d|toolu_sess-d" {
		t.Fatalf("with the branch held:\n%s", strings.Join(got, "\n"))
	}
	if text := gitIn(t, mem, "show", "HEAD~3:d.md"); text != "by sess-d\n" {
		t.Errorf("the queued change committed %q", text)
	}
	if res := r.Exec(t, "undo", "--session", "sess-e"); res.Code != 0 || !strings.Contains(res.Stdout, "delete e.md") || strings.Contains(res.Stdout, "d.md") {
		t.Fatalf("undo of one queued session: %+v", res)
	}
	if res := r.Exec(t, "doctor"); strings.Contains(res.Stdout, "journal queue") || strings.Contains(res.Stdout, "journal blocked") {
		t.Errorf("doctor after the queue drained:\n%s", res.Stdout)
	}
}

// restore never writes through a symlink out of memory/: sub/x.md was a
// memory file; memory/sub is now a link to a directory elsewhere.
func TestJournalRestoreRefusesSymlinkOut(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	os.MkdirAll(filepath.Join(mem, "sub"), 0o755)
	writeThroughHook(t, r, "sess-r", filepath.Join(mem, "sub", "x.md"), "inside\n")
	rev := strings.TrimSpace(gitIn(t, mem, "rev-parse", "HEAD"))
	os.RemoveAll(filepath.Join(mem, "sub"))
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(mem, "sub"))
	res := r.Exec(t, "restore", "memory/sub/x.md", "--at", rev)
	if res.Code != 1 || !strings.Contains(res.Stderr, "leads out of memory/ through a symlink") {
		t.Fatalf("restore: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.md")); !os.IsNotExist(err) {
		t.Error("restore wrote outside memory/")
	}
}

// history of a file is the same whether the path index answers (the
// service built it), partly (changes made after it), or git walks (no
// index): the changes that touched the file, newest first.
func TestJournalHistoryByPathIndex(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	notes := filepath.Join(mem, "notes.md")
	writeThroughHook(t, r, "sess-1", notes, "one\n")
	writeThroughHook(t, r, "sess-2", filepath.Join(mem, "other.md"), "x\n")
	walked := r.Exec(t, "history", "memory/notes.md")
	buildPathIndex(t, zylos)
	if got := r.Exec(t, "history", "memory/notes.md"); got != walked {
		t.Errorf("by the index:\n%s\nwalked:\n%s", got.Stdout, walked.Stdout)
	}
	writeThroughHook(t, r, "sess-3", notes, "one\ntwo\n") // appended to the index
	gitIn(t, mem, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "--allow-empty", "-m", "by hand")
	appendFile(t, notes, "three\n")
	gitIn(t, mem, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "-am", "by hand, notes") // after the index's tip
	got := r.Exec(t, "history", "memory/notes.md")
	if lines := strings.Split(strings.TrimSpace(revs(got.Stdout)), "\n"); len(lines) != 3 ||
		!strings.Contains(lines[0], "by hand, notes") || !strings.Contains(lines[1], "sess-3") || !strings.Contains(lines[2], "sess-1") {
		t.Errorf("history with changes after the index:\n%s%s", got.Stdout, got.Stderr)
	}
}

// The review's cases: a window must never hand a user's edit to the agent,
// nor an undo write over what the journal does not have.

// An undo never writes over content the journal does not have: with a
// shell of another session running, the user's fresh edit of core.md is
// not committed yet, and undoing a session that changed core.md refuses.
func TestJournalUndoKeepsUncommittedEdits(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	core := filepath.Join(mem, "core.md")
	toolHook(t, r, "PreToolUse", "sess-b", "toolu_w", "Write", core)
	appendFile(t, core, "- by sess-b\n")
	toolHook(t, r, "PostToolUse", "sess-b", "toolu_w", "Write", core)
	toolHook(t, r, "PreToolUse", "sess-a", "toolu_sh", "Bash", "") // still running
	appendFile(t, core, "USER NOTE\n")
	res := r.Exec(t, "undo", "--session", "sess-b")
	if res.Code == 0 || !strings.Contains(res.Stderr, "memory/core.md has changes the journal does not have yet") {
		t.Fatalf("undo: %+v", res)
	}
	if data, _ := os.ReadFile(core); !strings.Contains(string(data), "USER NOTE") {
		t.Error("the undo wrote over the user's edit")
	}
}

// A shell window whose PostToolUse never came holds only what changed
// after it opened; a user's edit made before the next shell call is an
// external edit, never that call's; and the session's Stop closes the
// window it left.
func TestJournalStaleShellWindowTakesNothingOfTheUsers(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	toolHook(t, r, "PreToolUse", "sess-1", "toolu_lost", "Bash", "") // never closed
	time.Sleep(20 * time.Millisecond)
	prefs := filepath.Join(mem, "reference", "preferences.md")
	appendFile(t, prefs, "- the user's preference\n")
	// The file was changed after the lost window opened: that window may
	// have made it, so it waits; the session's Stop ends the window.
	r.Stdin = `{"hook_event_name":"Stop","session_id":"sess-1","stop_hook_active":false,"last_assistant_message":"Done."}`
	if res := r.Exec(t, "hook", "stop"); res.Code != 0 {
		t.Fatal(res)
	}
	toolHook(t, r, "PreToolUse", "sess-2", "toolu_b2", "Bash", "")
	os.WriteFile(filepath.Join(mem, "b2.md"), []byte("by b2\n"), 0o644)
	toolHook(t, r, "PostToolUse", "sess-2", "toolu_b2", "Bash", "")
	got := commitsOf(t, mem)
	if got[0] != "Bash: create b2.md|sess-2|toolu_b2" || got[1] != "external edit: update reference/preferences.md||" {
		t.Fatalf("commits:\n%s", strings.Join(got, "\n"))
	}
}

// The user checks out an old revision; the agent's shell command then
// writes a note: the checkout's files are not the agent's change.
func TestJournalCheckoutIsNotTheAgents(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	core := filepath.Join(mem, "core.md")
	for i := 0; i < 3; i++ {
		appendFile(t, core, fmt.Sprintf("- fact %d\n", i))
		writeThroughHook(t, r, "sess-w", core, string(mustRead(t, core)))
	}
	gitIn(t, mem, "checkout", "-q", "HEAD~3")
	time.Sleep(20 * time.Millisecond)
	toolHook(t, r, "PreToolUse", "sess-1", "toolu_n", "Bash", "")
	os.WriteFile(filepath.Join(mem, "scratch.md"), []byte("note\n"), 0o644)
	res := toolHook(t, r, "PostToolUse", "sess-1", "toolu_n", "Bash", "")
	if strings.Contains(res.Stdout, "removed memory") {
		t.Errorf("the agent was told it removed memory: %s", res.Stdout)
	}
	if got := gitIn(t, mem, "log", "-1", "--name-only", "--format=%s", "master"); got != "Bash: create scratch.md\n\nscratch.md\n" {
		t.Fatalf("the branch's last commit:\n%s", got)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A directory that becomes a file, and a repository nested in memory/,
// are committed as git would keep them: the journal does not wedge, and
// no .git of another repository enters it.
func TestJournalDirectoryToFileAndNestedRepository(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	os.MkdirAll(filepath.Join(mem, "notes"), 0o755)
	writeThroughHook(t, r, "sess-1", filepath.Join(mem, "notes", "x.md"), "x\n")
	toolHook(t, r, "PreToolUse", "sess-2", "toolu_d", "Bash", "")
	os.RemoveAll(filepath.Join(mem, "notes"))
	os.WriteFile(filepath.Join(mem, "notes"), []byte("now a file\n"), 0o644)
	gitIn(t, filepath.Join(mem), "init", "-q", "sub")
	os.WriteFile(filepath.Join(mem, "sub", "y.md"), []byte("y\n"), 0o644)
	res := toolHook(t, r, "PostToolUse", "sess-2", "toolu_d", "Bash", "")
	if res.Stderr != "" {
		t.Errorf("hook: %+v", res)
	}
	tracked := gitIn(t, mem, "ls-files")
	if !strings.Contains(tracked, "notes\n") || strings.Contains(tracked, "notes/x.md") || strings.Contains(tracked, "sub/.git") {
		t.Errorf("tracked:\n%s", tracked)
	}
	gitIn(t, mem, "fsck", "--strict", "--no-progress")
	if res := r.Exec(t, "doctor"); strings.Contains(res.Stdout, "journal queue") {
		t.Errorf("the journal wedged:\n%s", res.Stdout)
	}
}

// history never lists a change no longer on the branch (the user reset
// it away), index or none.
func TestJournalHistoryAfterReset(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	notes := filepath.Join(mem, "notes.md")
	writeThroughHook(t, r, "sess-1", notes, "one\n")
	writeThroughHook(t, r, "sess-2", notes, "one\ntwo\n")
	buildPathIndex(t, zylos)
	dropped := strings.TrimSpace(gitIn(t, mem, "rev-parse", "--short=10", "HEAD"))
	gitIn(t, mem, "reset", "-q", "--hard", "HEAD~1")
	if res := r.Exec(t, "history", "memory/notes.md"); strings.Contains(res.Stdout, dropped) || !strings.Contains(res.Stdout, "sess-1") {
		t.Errorf("history after the reset:\n%s%s", res.Stdout, res.Stderr)
	}
}

// A git of the user's at work in memory/ keeps its lock, even one it has
// closed while its editor runs: the hooks meanwhile neither remove it nor
// break the user's commit.
func TestJournalLeavesALiveGitsLock(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	appendFile(t, filepath.Join(mem, "core.md"), "- the user's own line\n")
	cmd := exec.Command("git", "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "-a")
	cmd.Dir = mem
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_EDITOR=sleep 1.5; echo 'by the user' >")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // the editor runs, index.lock closed
	notes := filepath.Join(mem, "notes.md")
	toolHook(t, r, "PreToolUse", "sess-1", "toolu_g", "Write", notes)
	os.WriteFile(notes, []byte("the agent's\n"), 0o644)
	toolHook(t, r, "PostToolUse", "sess-1", "toolu_g", "Write", notes)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the user's commit failed: %v\n%s", err, out.String())
	}
	if got := gitIn(t, mem, "log", "--format=%s", "-3"); !strings.Contains(got, "by the user") {
		t.Errorf("history:\n%s", got)
	}
}

// Two sessions' tool calls run at once, each on a file of its own, while
// an editor appends to a third: every commit of a session holds only that
// session's file, an editor's line lands only in external edits, and no
// session's write is taken as an external edit.
func TestJournalConcurrentSessionsKeepTheirOwn(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	bin := testutil.Binary(t)
	hook := func(command, payload string) {
		cmd := exec.Command(bin, "hook", command)
		cmd.Env = r.Environ()
		cmd.Stdin = strings.NewReader(payload)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("hook %s: %v %s", command, err, out)
		}
	}
	for _, s := range []string{"sess-a", "sess-b"} {
		os.WriteFile(filepath.Join(mem, s+".md"), []byte("# "+s+"\n"), 0o644)
	}
	prompt := `{"hook_event_name":"UserPromptSubmit","session_id":"sess-c","prompt":"hello","cwd":"/"}`
	r.Stdin = prompt
	r.Exec(t, "hook", "user-prompt-submit") // the files as created: an external edit
	base := strings.TrimSpace(gitIn(t, mem, "rev-parse", "HEAD"))
	stop := time.Now().Add(4 * time.Second)
	var wg sync.WaitGroup
	for _, s := range []string{"sess-a", "sess-b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := filepath.Join(mem, s+".md")
			for i := 0; time.Now().Before(stop); i++ {
				id := fmt.Sprintf("toolu_%s_%d", s, i)
				hook("pre-tool-use", toolCallPayload("PreToolUse", s, id, "Edit", path))
				appendFile(t, path, fmt.Sprintf("- %s line %d\n", s, i))
				hook("post-tool-use", toolCallPayload("PostToolUse", s, id, "Edit", path))
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; time.Now().Before(stop); i++ {
			appendFile(t, filepath.Join(mem, "reference", "preferences.md"), fmt.Sprintf("- editor line %d\n", i))
			time.Sleep(50 * time.Millisecond)
		}
	}()
	wg.Wait()
	r.Stdin = prompt
	r.Exec(t, "hook", "user-prompt-submit") // commits what the editor left last
	log := gitIn(t, mem, "log", "--name-only", "--format=%x1e%(trailers:key=Zylos-Session,valueonly,separator=)", base+"..HEAD")
	for _, rec := range strings.Split(log, "\x1e") {
		session, files, _ := strings.Cut(rec, "\n")
		for _, f := range strings.Fields(files) {
			switch {
			case f == "sess-a.md" || f == "sess-b.md":
				if session+".md" != f {
					t.Errorf("%s in a commit of session %q", f, session)
				}
			case f == "reference/preferences.md" && session != "":
				t.Errorf("the editor's file in a commit of session %q", session)
			}
		}
	}
	if res := r.Exec(t, "undo", "--session", "sess-a", "--dry-run"); res.Code != 0 || strings.Contains(res.Stdout, "sess-b.md") {
		t.Errorf("undo --dry-run of sess-a: %+v", res)
	}
}
