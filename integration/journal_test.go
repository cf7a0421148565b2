package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// journalHome is an initialised home whose journal holds init's commit.
func journalHome(t *testing.T) (string, testutil.Run) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	zylos := filepath.Join(t.TempDir(), "zylos")
	r := testutil.Run{ZylosDir: zylos}
	if res := r.Exec(t, "init"); res.Code != 0 {
		t.Fatalf("init: %+v", res)
	}
	return zylos, r
}

func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// writePayload is Claude Code's PostToolUse input after a Write.
func writePayload(session, path string) string {
	return fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":%q,"tool_name":"Write","tool_input":{"file_path":%q,"content":"x"},"tool_response":{},"cwd":"/"}`, session, path)
}

// writeThroughHook writes text to path as the agent's Write tool does,
// then runs the PostToolUse hook of session on it.
func writeThroughHook(t *testing.T, r testutil.Run, session, path, text string) {
	t.Helper()
	os.WriteFile(path, []byte(text), 0o644)
	r.Stdin = writePayload(session, path)
	if res := r.Exec(t, "hook", "post-tool-use"); res.Code != 0 {
		t.Fatalf("hook: %+v", res)
	}
}

// revs replaces the revisions of a history listing by REV.
var revPattern = regexp.MustCompile(`(?m)^[0-9a-f]{10} `)

func revs(s string) string { return revPattern.ReplaceAllString(s, "REV ") }

// A new user's story: the agent truncates core.md; the hook tells it at
// once what left and how to restore it; history shows the change with
// its session; restore puts it back as a new change; stock git reads it.
func TestJournalTruncationToldFoundRestored(t *testing.T) {
	zylos, r := journalHome(t)
	core := filepath.Join(zylos, "memory", "core.md")
	before, _ := os.ReadFile(core)
	lines := strings.SplitAfter(string(before), "\n")
	os.WriteFile(core, []byte(strings.Join(lines[:3], "")), 0o644)
	r.Stdin = writePayload("sess-trunc", core)
	res := r.Exec(t, "hook", "post-tool-use")
	r.Stdin = ""
	parent := strings.TrimSpace(gitIn(t, filepath.Join(zylos, "memory"), "rev-parse", "--short=10", "HEAD~1"))
	bin := testutil.Binary(t)
	want := fmt.Sprintf(`{"decision":"block","reason":"This change removed memory: 18 lines left memory/core.md (\"## Identity\", \"I am a Zylos agent -- an autonomous AI assistant. Ready for first interaction.\", \"## User Profile\", …); if that was not meant, restore it with: %s --zylos-dir %s restore memory/core.md --at %s."}`+"\n", bin, zylos, parent)
	if res.Code != 0 || res.Stdout != want || res.Stderr != "" {
		t.Fatalf("hook: exit %d\n%s\nwant\n%s\nstderr %s", res.Code, res.Stdout, want, res.Stderr)
	}
	res = r.Exec(t, "history", "memory/core.md")
	wantHistory := "REV 2026-03-15 10:30:00 hook sess-trunc  Write: update core.md  +0 -18\n" +
		"REV 2026-03-15 10:30:00 command  init: create core.md, create reference/decisions.md, create reference/preferences.md, and 2 more  +21 -0\n"
	if res.Code != 0 || revs(res.Stdout) != wantHistory {
		t.Fatalf("history: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	res = r.Exec(t, "history", "--json", "--limit", "1", "core.md")
	var entries []map[string]any
	if err := json.Unmarshal([]byte(res.Stdout), &entries); err != nil || len(entries) != 1 {
		t.Fatalf("history --json: %v\n%s", err, res.Stdout)
	}
	e := entries[0]
	if e["source"] != "hook" || e["session"] != "sess-trunc" || e["tool"] != "Write" || e["summary"] != "Write: update core.md" ||
		e["added"] != 0.0 || e["removed"] != 18.0 || fmt.Sprint(e["paths"]) != "[core.md]" || e["time"] != "2026-03-15T10:30:00Z" {
		t.Errorf("history --json entry: %v", e)
	}
	// The advised command, verbatim.
	advised := regexp.MustCompile(`restore it with: (.*)\."`).FindStringSubmatch(want)[1]
	sh := exec.Command("/bin/sh", "-c", advised)
	sh.Env = r.Environ()
	out, err := sh.CombinedOutput()
	if err != nil || !regexp.MustCompile(`^restored memory/core.md as at `+parent+` \([0-9a-f]{10}\)\n$`).Match(out) {
		t.Fatalf("advised restore: %v\n%s", err, out)
	}
	if now, _ := os.ReadFile(core); string(now) != string(before) {
		t.Errorf("core.md not restored:\n%s", now)
	}
	log := gitIn(t, filepath.Join(zylos, "memory"), "log", "--format=%s|%(trailers:key=Zylos-Source,valueonly,separator=)", "-p", "core.md")
	if !strings.HasPrefix(log, "restore: memory/core.md as at "+parent+"|command\n") || !strings.Contains(log, "Write: update core.md|hook") {
		t.Errorf("stock git log:\n%s", log)
	}
	if got := gitIn(t, filepath.Join(zylos, "memory"), "status", "--porcelain"); got != "" {
		t.Errorf("uncommitted after restore:\n%s", got)
	}
}

// Each memory-writing command is one commit naming what it did, after a
// commit of the external edits it found, which it never swallows.
func TestJournalCommandCommitsAfterExternalEdit(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	os.WriteFile(filepath.Join(mem, "reference", "projects.md"), []byte("# Projects\n\nhand notes\n"), 0o644)
	input := filepath.Join(mem, "records", ".staging", "in.json")
	os.MkdirAll(filepath.Dir(input), 0o755)
	os.WriteFile(input, []byte(`{"title":"Use Postgres","tags":["db"],"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`), 0o644)
	r.Env = []string{"CLAUDE_CODE_SESSION_ID=sess-cmd"}
	res := r.Exec(t, "records", "write", "--action", "create", "--category", "decision", "--input", input,
		"--target", filepath.Join(mem, "records", "decisions", "use-postgres.json"))
	if res.Code != 0 {
		t.Fatalf("records write: %+v", res)
	}
	got := gitIn(t, mem, "log", "-2", "--format=%s|%(trailers:only,unfold,separator=%x2C )")
	want := "records write: create decision use-postgres, create records/index.md, update reference/decisions.md|Zylos-Source: command, Zylos-Session: sess-cmd, Zylos-Command: records write\n" +
		"external edit: update reference/projects.md|Zylos-Source: external\n"
	if got != want {
		t.Errorf("commits:\n%s\nwant\n%s", got, want)
	}
	if files := gitIn(t, mem, "ls-files", "records"); strings.Contains(files, ".staging") || strings.Contains(files, "lock") {
		t.Errorf("staging or lock files committed:\n%s", files)
	}
	// A command that changes nothing makes no commit.
	head := gitIn(t, mem, "rev-parse", "HEAD")
	r.Exec(t, "rotate")
	if gitIn(t, mem, "rev-parse", "HEAD") != head {
		t.Errorf("an empty commit: %s", gitIn(t, mem, "log", "-1", "--stat"))
	}
}

// Undo reverts one session's changes and keeps another's; where a later
// change is in the way it changes nothing and says where.
func TestJournalUndoSession(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	hook := func(session, rel, content string) {
		p := filepath.Join(mem, rel)
		os.WriteFile(p, []byte(content), 0o644)
		r.Stdin = writePayload(session, p)
		if res := r.Exec(t, "hook", "post-tool-use"); res.Code != 0 {
			t.Fatalf("hook: %+v", res)
		}
		r.Stdin = ""
	}
	hook("sess-a", "notes-a.md", "from a\n")
	hook("sess-b", "notes-b.md", "from b\n")
	hook("sess-a", "notes-c.md", "one\ntwo\n")
	res := r.Exec(t, "undo", "--session", "sess-a")
	if res.Code != 0 || !strings.HasSuffix(res.Stdout, "): delete notes-a.md, delete notes-c.md\n") || strings.Count(res.Stdout, "reverted ") != 2 {
		t.Fatalf("undo: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	for rel, want := range map[string]bool{"notes-a.md": false, "notes-b.md": true, "notes-c.md": false} {
		if _, err := os.Stat(filepath.Join(mem, rel)); (err == nil) != want {
			t.Errorf("%s present=%v after undo", rel, err == nil)
		}
	}
	// sess-c writes a file sess-d then edits: undoing sess-c is blocked.
	hook("sess-c", "notes-d.md", "alpha\nbeta\n")
	hook("sess-d", "notes-d.md", "alpha\nbeta changed\n")
	head := gitIn(t, mem, "rev-parse", "HEAD")
	res = r.Exec(t, "undo", "--session", "sess-c")
	if res.Code != 1 || res.Stdout != "" || !strings.HasPrefix(res.Stderr, "zylos-memory: cannot undo cleanly; nothing changed. Later changes are in the way of: ") ||
		!strings.Contains(res.Stderr, "notes-d.md") || strings.Count(res.Stderr, "\n") != 1 {
		t.Fatalf("blocked undo: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if gitIn(t, mem, "rev-parse", "HEAD") != head {
		t.Error("a blocked undo committed")
	}
	if data, _ := os.ReadFile(filepath.Join(mem, "notes-d.md")); string(data) != "alpha\nbeta changed\n" {
		t.Errorf("a blocked undo changed the file: %q", data)
	}
}

// Bad input: one line, exit 1, nothing changed.
func TestJournalBadInput(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	head := gitIn(t, mem, "rev-parse", "HEAD")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"restore", "/etc/passwd", "--at", "HEAD"}, "zylos-memory: /etc/passwd is not a file of the memory the journal keeps\n"},
		{[]string{"restore", "memory/.state/scheduler.db", "--at", "HEAD"}, "zylos-memory: memory/.state/scheduler.db is not a file of the memory the journal keeps\n"},
		{[]string{"restore", "memory/core.md", "--at", "deadbeef"}, "zylos-memory: \"deadbeef\" is not a revision of the memory journal (see `history`)\n"},
		{[]string{"restore", "memory/core.md", "--at", "2020-01-01"}, "zylos-memory: the memory journal has no version at or before 2020-01-01T00:00:00Z\n"},
		{[]string{"restore", "memory/nothing.md", "--at", "HEAD"}, "zylos-memory: memory/nothing.md did not exist at " + head[:10] + "\n"},
		{[]string{"history", "--since", "yesterdy"}, "zylos-memory: --since \"yesterdy\": not a time (2026-05-01, 2026-05-01 14:00, RFC 3339, yesterday, 2 hours ago)\n"},
		{[]string{"history", "--until", "2026-13-45"}, "zylos-memory: --until \"2026-13-45\": not a time (2026-05-01, 2026-05-01 14:00, RFC 3339, yesterday, 2 hours ago)\n"},
		{[]string{"show", "--", "-p"}, "zylos-memory: \"-p\" is not a revision of the memory journal\n"},
		{[]string{"history", "../../etc/passwd"}, "zylos-memory: ../../etc/passwd is not a file of the memory the journal keeps\n"},
	}
	for _, c := range cases {
		res := r.Exec(t, c.args...)
		if res.Code != 1 || res.Stdout != "" || res.Stderr != c.want {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q\nwant   %q", c.args, res.Code, res.Stdout, res.Stderr, c.want)
		}
	}
	if gitIn(t, mem, "rev-parse", "HEAD") != head || gitIn(t, mem, "status", "--porcelain") != "" {
		t.Error("bad input changed the journal or the memory")
	}
}

// A reference file is restored through the bridge: its records follow,
// their change log saying where from; a record is restored through a
// records write, with the same change-log entry.
func TestJournalRestoreReferenceAndRecord(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	decisions := filepath.Join(mem, "reference", "decisions.md")
	entry := "# Decisions Log\n\n### [2026-03-01] Use SQLite for the log\n- **Decision:** %s\n- **Context:** embedded\n- **Status:** active\n"
	hook := func(content string) {
		data, _ := os.ReadFile(decisions)
		// Keep the id line the ingest added.
		id := regexp.MustCompile(`<!-- id: [^>]* -->\n`).FindString(string(data))
		text := strings.Replace(content, "- **Decision:**", id+"- **Decision:**", 1)
		os.WriteFile(decisions, []byte(text), 0o644)
		r.Stdin = writePayload("sess-ref", decisions)
		if res := r.Exec(t, "hook", "post-tool-use"); res.Code != 0 {
			t.Fatalf("hook: %+v", res)
		}
		r.Stdin = ""
	}
	hook(fmt.Sprintf(entry, "SQLite with WAL"))
	first := strings.TrimSpace(gitIn(t, mem, "rev-parse", "--short=10", "HEAD"))
	hook(fmt.Sprintf(entry, "Postgres after all"))
	recs, _ := filepath.Glob(filepath.Join(mem, "records", "decisions", "*.json"))
	if len(recs) != 1 {
		t.Fatalf("records: %v", recs)
	}
	readRecord := func() map[string]any {
		var rec map[string]any
		data, _ := os.ReadFile(recs[0])
		json.Unmarshal(data, &rec)
		return rec
	}
	if !strings.Contains(fmt.Sprint(readRecord()["content"]), "Postgres after all") {
		t.Fatalf("the edit did not reach the record: %v", readRecord())
	}
	res := r.Exec(t, "restore", "memory/reference/decisions.md", "--at", first)
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "restored memory/reference/decisions.md as at "+first+" (") {
		t.Fatalf("restore: %+v", res)
	}
	rec := readRecord()
	if changes := fmt.Sprint(rec["changes"]); !strings.Contains(fmt.Sprint(rec["content"]), "SQLite with WAL") || !strings.Contains(changes, "summary:restored from "+first+"]") {
		t.Errorf("the record did not follow: content %v, changes %v", rec["content"], changes)
	}
	if got := gitIn(t, mem, "show", "--stat", "--format=%s", "HEAD"); !strings.HasPrefix(got, "restore: memory/reference/decisions.md as at "+first+"\n") ||
		!strings.Contains(got, "records/decisions/") {
		t.Errorf("the restore commit does not carry the record:\n%s", got)
	}
	// The record itself, by its id.
	id := strings.TrimSuffix(filepath.Base(recs[0]), ".json")
	res = r.Exec(t, "restore", id, "--at", "HEAD~1")
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "restored memory/records/decisions/"+id+".json as at ") {
		t.Fatalf("restore of a record: %+v", res)
	}
	rec = readRecord()
	if changes := fmt.Sprint(rec["changes"]); !strings.Contains(fmt.Sprint(rec["content"]), "Postgres after all") || strings.Count(changes, "summary:restored from ") != 2 {
		t.Errorf("the record was not restored through records write: content %v, changes %v", rec["content"], changes)
	}
	if data, _ := os.ReadFile(decisions); !strings.Contains(string(data), "- **Decision:** Postgres after all") {
		t.Errorf("the restored record's entry did not follow:\n%s", data)
	}
}

// A home inside another git work tree keeps its own journal; the outer
// repository gets no commit, and doctor says how the two relate.
func TestJournalHomeInsideAnotherRepository(t *testing.T) {
	outer := t.TempDir()
	gitIn(t, outer, "init", "-q")
	zylos := filepath.Join(outer, "zylos")
	r := testutil.Run{ZylosDir: zylos}
	if res := r.Exec(t, "init"); res.Code != 0 {
		t.Fatalf("init: %+v", res)
	}
	if out, err := exec.Command("git", "-C", outer, "rev-parse", "-q", "--verify", "HEAD").Output(); err == nil {
		t.Errorf("the outer repository got a commit: %s", out)
	}
	if n := strings.Count(gitIn(t, filepath.Join(zylos, "memory"), "log", "--oneline"), "\n"); n != 1 {
		t.Errorf("%d journal commits, want 1", n)
	}
	res := r.Exec(t, "doctor")
	if !strings.Contains(res.Stdout, "ok    journal nesting: the home is inside the git work tree "+outer+"; memory/ has a repository of its own") {
		t.Errorf("doctor:\n%s", res.Stdout)
	}
}

// History of a reference entry by its id lists the changes to that entry
// only, not every change to its file.
func TestJournalHistoryOfOneEntry(t *testing.T) {
	zylos, r := journalHome(t)
	decisions := filepath.Join(zylos, "memory", "reference", "decisions.md")
	const sqlite = "### [2026-03-01] Use SQLite for the log\n- **Decision:** SQLite with WAL\n- **Status:** active\n"
	const kafka = "### [2026-03-02] Consume with Kafka\n- **Decision:** %s\n- **Status:** active\n"
	write := func(session, text string) { writeThroughHook(t, r, session, decisions, text) }
	ids := func() []string {
		data, _ := os.ReadFile(decisions)
		var out []string
		for _, m := range regexp.MustCompile(`<!-- id: ([^ ]+) -->`).FindAllStringSubmatch(string(data), -1) {
			out = append(out, m[1])
		}
		return out
	}
	write("s-sqlite", "# Decisions Log\n\n"+sqlite)
	data, _ := os.ReadFile(decisions)
	write("s-kafka", string(data)+"\n"+fmt.Sprintf(kafka, "one consumer group"))
	data, _ = os.ReadFile(decisions)
	write("s-lag", strings.Replace(string(data), "one consumer group", "a group per topic", 1))
	got := ids()
	if len(got) != 2 {
		t.Fatalf("ids: %v", got)
	}
	sessions := func(arg string) string {
		t.Helper()
		res := r.Exec(t, "history", "--json", arg)
		var es []struct{ Session string }
		if err := json.Unmarshal([]byte(res.Stdout), &es); err != nil || res.Code != 0 {
			t.Fatalf("history %s: %+v", arg, res)
		}
		var s []string
		for _, e := range es {
			s = append(s, e.Session)
		}
		return strings.Join(s, " ")
	}
	if s := sessions(got[0]); s != "s-sqlite" {
		t.Errorf("history of the SQLite entry: %q, want s-sqlite", s)
	}
	if s := sessions(got[1]); s != "s-lag s-kafka" {
		t.Errorf("history of the Kafka entry: %q, want s-lag s-kafka", s)
	}
	if s := sessions("memory/reference/decisions.md"); !strings.HasPrefix(s, "s-lag s-kafka s-sqlite") {
		t.Errorf("history of the file: %q", s)
	}
}

// Undoing a session's edits of a reference file takes its records along
// through the records layer: an edited record gets its content back and
// keeps its change log, with the undo appended; a record the session
// created is retired, never deleted.
func TestJournalUndoKeepsRecordsHistory(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	decisions := filepath.Join(mem, "reference", "decisions.md")
	write := func(session, text string) { writeThroughHook(t, r, session, decisions, text) }
	write("s-before", "# Decisions Log\n\n### [2026-03-01] Use SQLite for the log\n- **Decision:** SQLite with WAL\n- **Status:** active\n")
	before, _ := os.ReadFile(decisions)
	sqliteRec, _ := filepath.Glob(filepath.Join(mem, "records", "decisions", "*.json"))
	if len(sqliteRec) != 1 {
		t.Fatalf("records: %v", sqliteRec)
	}
	edited := strings.Replace(string(before), "SQLite with WAL", "SQLite, WAL off", 1)
	write("s-undone", edited+"\n### [2026-03-02] Consume with Kafka\n- **Decision:** one consumer group\n- **Status:** active\n")
	all, _ := filepath.Glob(filepath.Join(mem, "records", "decisions", "*.json"))
	if len(all) != 2 {
		t.Fatalf("records after the session: %v", all)
	}
	res := r.Exec(t, "undo", "--session", "s-undone")
	if res.Code != 0 {
		t.Fatalf("undo: %+v", res)
	}
	if data, _ := os.ReadFile(decisions); !strings.Contains(string(data), "SQLite with WAL") || strings.Contains(string(data), "Kafka") {
		t.Errorf("decisions.md after the undo:\n%s", data)
	}
	record := func(p string) map[string]any {
		var rec map[string]any
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("a record is gone: %v", err)
		}
		json.Unmarshal(data, &rec)
		return rec
	}
	for _, p := range all {
		rec := record(p)
		changes := fmt.Sprint(rec["changes"])
		switch p {
		case sqliteRec[0]:
			if !strings.Contains(fmt.Sprint(rec["content"]), "SQLite with WAL") || rec["record_status"] != "active" ||
				strings.Count(changes, "summary:") < 3 || !strings.Contains(changes, "undone: session s-undone") {
				t.Errorf("the edited record: status %v, content %v, changes %v", rec["record_status"], rec["content"], changes)
			}
		default:
			if rec["record_status"] != "retired" || !strings.Contains(changes, "undone: session s-undone") {
				t.Errorf("the created record: status %v, changes %v", rec["record_status"], changes)
			}
		}
	}
	if st := gitIn(t, mem, "status", "--porcelain"); st != "" {
		t.Errorf("the undo left changes out of the journal:\n%s", st)
	}
}
