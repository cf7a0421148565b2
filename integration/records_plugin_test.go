package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// pluginStore is a project with a plugin-style store, .claude/memory,
// driven the way the plugin's callers drive it: from the project (or
// from elsewhere with --root), with the plugin's inputs.
type pluginStore struct {
	t                    *testing.T
	zylos, project, root string
}

const pluginNow = "ZYLOS_MEMORY_NOW=2026-03-15T10:30:00Z"

func newPluginStore(t *testing.T) *pluginStore {
	t.Helper()
	base := t.TempDir()
	s := &pluginStore{t: t, zylos: filepath.Join(base, "zylos"), project: filepath.Join(base, "project")}
	s.root = filepath.Join(s.project, ".claude", "memory")
	for _, d := range []string{s.zylos, filepath.Join(s.root, ".staging"), filepath.Join(s.root, "decisions")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// run executes the binary from dir ("" is the project).
func (s *pluginStore) run(dir, stdin string, args ...string) testutil.Result {
	s.t.Helper()
	return s.runEnv(nil, dir, stdin, args...)
}

func (s *pluginStore) runEnv(env []string, dir, stdin string, args ...string) testutil.Result {
	s.t.Helper()
	if dir == "" {
		dir = s.project
	}
	return testutil.Run{ZylosDir: s.zylos, Dir: dir, Env: append([]string{pluginNow}, env...), Stdin: stdin}.Exec(s.t, args...)
}

func (s *pluginStore) file(rel, body string) string {
	s.t.Helper()
	p := filepath.Join(s.project, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

func (s *pluginStore) golden(name string, res testutil.Result) {
	s.t.Helper()
	text := fmt.Sprintf("exit: %d\n--- stdout\n%s--- stderr\n%s", res.Code, res.Stdout, res.Stderr)
	text = strings.ReplaceAll(text, s.project, "$PROJECT")
	testutil.Golden(s.t, filepath.Join("testdata", "records", "plugin", name+".golden"), []byte(text))
}

// A record as the plugin writes one: its Optional fields may be null.
const pluginRecord = `{"schema_version": "1.0", "category": "decision", "id": "pick-sqlite",
 "title": "Pick SQLite for the cache", "record_status": "active",
 "created_at": "2026-03-01T09:00:00Z", "updated_at": "2026-03-01T09:00:00Z",
 "tags": ["cache", "sqlite"], "related_files": null, "confidence": null, "changes": null,
 "retired_at": null, "retired_reason": null, "archived_at": null, "archived_reason": null,
 "times_updated": 0,
 "content": {"status": "accepted", "context": "One process reads", "decision": "SQLite file", "rationale": ["No server"]}}`

// TestRecordsPluginWrites: the plugin's inputs and its error spellings.
func TestRecordsPluginWrites(t *testing.T) {
	s := newPluginStore(t)
	target := ".claude/memory/decisions/pick-sqlite.json"
	in := s.file(".claude/memory/.staging/in.json", pluginRecord)
	s.golden("create-null-optionals", s.run("", "", "records", "write", "--action", "create", "--category", "decision",
		"--target", target, "--input", in))
	// A file with nulls written by the plugin itself passes the PostToolUse check.
	s.file(".claude/memory/decisions/by-plugin.json", strings.Replace(pluginRecord, `"pick-sqlite"`, `"by-plugin"`, 1))
	s.golden("validate-null-optionals", s.run("", fmt.Sprintf(`{"tool_name":"Write","tool_input":{"file_path":%q}}`,
		filepath.Join(s.root, "decisions", "by-plugin.json")), "records", "validate"))
	// Updating a record whose stored fields are null, without --hash.
	up := strings.Replace(pluginRecord, `"One process reads"`, `"Two processes read"`, 1)
	up = strings.Replace(up, `"changes": null`, `"changes": [{"date": "2026-03-15T10:00:00Z", "summary": "two readers"}]`, 1)
	s.golden("update-without-hash", s.run("", "", "records", "write", "--action", "update", "--target", target,
		"--input", s.file(".claude/memory/.staging/up.json", up)))

	missing := ".claude/memory/decisions/none.json"
	s.golden("retire-missing", s.run("", "", "records", "write", "--action", "retire", "--target", missing))
	s.golden("delete-missing", s.run("", "", "records", "write", "--action", "delete", "--target", missing))
	s.golden("archive", s.run("", "", "records", "write", "--action", "archive", "--target", target, "--reason", "done"))
	s.golden("delete-archived", s.run("", "", "records", "write", "--action", "delete", "--target", target))
	s.golden("retire-archived", s.run("", "", "records", "write", "--action", "retire", "--target", target))
	s.golden("unarchive", s.run("", "", "records", "write", "--action", "unarchive", "--target", target))
	s.golden("unarchive-active", s.run("", "", "records", "write", "--action", "unarchive", "--target", target))

	var rec struct {
		Changes []map[string]any `json:"changes"`
	}
	data, _ := os.ReadFile(filepath.Join(s.project, target))
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	last := rec.Changes[len(rec.Changes)-2:]
	for i, want := range [][2]string{{"active", "archived"}, {"archived", "active"}} {
		if last[i]["field"] != "record_status" || last[i]["old_value"] != want[0] || last[i]["new_value"] != want[1] {
			t.Errorf("change %d = %v, want record_status %s -> %s", i, last[i], want[0], want[1])
		}
	}
}

// TestRecordsPluginDraft: draft answers a path the caller can open from
// its own directory and reports its errors on stderr, as the plugin does.
func TestRecordsPluginDraft(t *testing.T) {
	s := newPluginStore(t)
	elsewhere := t.TempDir()
	partial := `{"title": "Pick SQLite for the cache", "tags": ["cache"], "change_summary": "chosen",
 "content": {"status": "accepted", "context": "One process reads", "decision": "SQLite file", "rationale": ["No server"]}}`
	in := s.file(".claude/memory/.staging/input-decision.json", partial)

	res := s.run(elsewhere, "", "records", "draft", "--action", "create", "--category", "decision", "--input-file", in, "--root", s.root)
	s.golden("draft-root-absolute", res)
	var ans struct {
		DraftPath string `json:"draft_path"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &ans); err != nil {
		t.Fatalf("%v: %q", err, res.Stdout)
	}
	opened := ans.DraftPath
	if !filepath.IsAbs(opened) {
		opened = filepath.Join(elsewhere, opened)
	}
	if _, err := os.Stat(opened); err != nil {
		t.Fatalf("draft_path %q does not open from the caller's directory: %v", ans.DraftPath, err)
	}
	// Without --root, from the project: relative to it, like the plugin's default root.
	s.golden("draft-default-root", s.run("", "", "records", "draft", "--action", "create", "--category", "decision",
		"--input-file", ".claude/memory/.staging/input-decision.json"))
	s.file(".claude/memory/decisions/pick-sqlite.json", pluginRecord)
	res = s.run("", "", "records", "draft", "--action", "update", "--category", "decision",
		"--input-file", in, "--candidate-file", ".claude/memory/decisions/pick-sqlite.json")
	s.golden("draft-update-counts", res)
	var draft struct {
		TimesUpdated int              `json:"times_updated"`
		Changes      []map[string]any `json:"changes"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &ans); err != nil {
		t.Fatalf("%v: %q", err, res.Stdout)
	}
	data, err := os.ReadFile(filepath.Join(s.project, ans.DraftPath))
	if err == nil {
		err = json.Unmarshal(data, &draft)
	}
	if err != nil || draft.TimesUpdated != 1 || len(draft.Changes) != 1 || draft.Changes[0]["summary"] != "chosen" {
		t.Errorf("update draft: times_updated %d, changes %v (%v); want 1 and the one new entry", draft.TimesUpdated, draft.Changes, err)
	}

	s.golden("draft-missing-fields", s.run("", "", "records", "draft", "--action", "create", "--category", "decision",
		"--input-file", s.file(".claude/memory/.staging/thin.json", `{"title": "Only a title"}`)))
	s.golden("draft-bad-json", s.run("", "", "records", "draft", "--action", "create", "--category", "decision",
		"--input-file", s.file(".claude/memory/.staging/bad.json", `{not json`)))
	s.golden("draft-outside", s.run("", "", "records", "draft", "--action", "create", "--category", "decision",
		"--input-file", filepath.Join(s.project, "notes", "absent.json"), "--root", s.root))
	s.golden("draft-no-candidate", s.run("", "", "records", "draft", "--action", "update", "--category", "decision",
		"--input-file", in))
	s.golden("draft-candidate-missing", s.run("", "", "records", "draft", "--action", "update", "--category", "decision",
		"--input-file", in, "--candidate-file", filepath.Join(s.project, "gone.json"), "--root", s.root))
}

// TestRecordsPluginIndexEnforce: index reports in the plugin's words, and
// enforce's bounds.
func TestRecordsPluginIndexEnforce(t *testing.T) {
	s := newPluginStore(t)
	s.golden("rebuild-empty", s.run("", "", "records", "index", "--root", s.root, "--rebuild"))
	s.golden("health-empty", s.run("", "", "records", "index", "--root", s.root, "--health"))
	s.golden("gc-nothing", s.run("", "", "records", "index", "--root", s.root, "--gc"))

	heavy := strings.Replace(pluginRecord, `"times_updated": 0`, `"times_updated": 9`, 1)
	s.file(".claude/memory/decisions/pick-sqlite.json", heavy)
	retired := strings.NewReplacer(`"pick-sqlite"`, `"old-cache"`, `"record_status": "active"`, `"record_status": "retired"`,
		`"retired_at": null`, `"retired_at": "2026-03-12T10:30:00Z"`, "Pick SQLite", "Old cache").Replace(pluginRecord)
	s.file(".claude/memory/decisions/old-cache.json", retired)
	undated := strings.NewReplacer(`"pick-sqlite"`, `"no-date"`, `"record_status": "active"`, `"record_status": "retired"`,
		"Pick SQLite", "No date").Replace(pluginRecord)
	s.file(".claude/memory/decisions/no-date.json", undated)
	// From the project, without --root: .claude/memory, the plugin's default.
	s.golden("rebuild", s.run("", "", "records", "index", "--rebuild"))
	s.golden("health", s.run("", "", "records", "index", "--root", s.root, "--health"))
	s.golden("gc-skip", s.run("", "", "records", "index", "--root", s.root, "--gc"))

	for _, args := range [][]string{{"--max-retained", "0"}, {"--max-retained", "-1"}, {"--max-retire", "0"}} {
		res := s.run("", "", append([]string{"records", "enforce", "--category", "session_summary", "--root", s.root}, args...)...)
		if res.Code == 0 || !strings.Contains(res.Stderr, args[0]+" must be >= 1") {
			t.Errorf("enforce %v: exit %d, stderr %q", args, res.Code, res.Stderr)
		}
	}
	session := func(day int) {
		s.file(fmt.Sprintf(".claude/memory/sessions/s-%d.json", day), fmt.Sprintf(`{"schema_version": "1.0",
 "category": "session_summary", "id": "s-%d", "title": "Session %d", "created_at": "2026-03-%02dT09:00:00Z",
 "updated_at": "2026-03-%02dT09:00:00Z", "tags": ["session"], "record_status": "active",
 "content": {"goal": "g", "outcome": "success", "completed": [], "next_actions": []}}`, day, day, day, day))
	}
	for day := 1; day <= 4; day++ {
		session(day)
	}
	s.golden("enforce-dry-run", s.run("", "", "records", "enforce", "--category", "session_summary", "--root", s.root,
		"--max-retained", "1", "--dry-run"))
	// Without --root, enforce finds the store as the plugin's script does:
	// from $CLAUDE_PROJECT_ROOT, or upward from the working directory.
	sub := filepath.Join(s.project, "src", "pkg")
	os.MkdirAll(sub, 0o755)
	upward := s.run(sub, "", "records", "enforce", "--category", "session_summary", "--max-retained", "1", "--dry-run")
	fromEnv := s.runEnv([]string{"CLAUDE_PROJECT_ROOT=" + s.project}, t.TempDir(), "",
		"records", "enforce", "--category", "session_summary", "--max-retained", "1", "--dry-run")
	for _, res := range []testutil.Result{upward, fromEnv} {
		if res.Code != 0 || !strings.Contains(res.Stdout, `".claude/memory/sessions/s-3.json"`) {
			t.Errorf("enforce without --root did not find the project's store: %+v", res)
		}
	}
	s.golden("enforce-max-retire", s.run("", "", "records", "enforce", "--category", "session_summary", "--root", s.root,
		"--max-retained", "1", "--max-retire", "2"))
	// Without --max-retire one run retires at most max(10, 10*max_retained),
	// the plugin's safety valve: 12 active, window 1, 10 go.
	for day := 5; day <= 14; day++ {
		session(day)
	}
	res := s.run("", "", "records", "enforce", "--category", "session_summary", "--root", s.root, "--max-retained", "1")
	var ans struct {
		Active  int      `json:"active_count"`
		Retired []string `json:"retired"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &ans); err != nil || len(ans.Retired) != 10 || ans.Active != 2 {
		t.Errorf("enforce over 12 active with window 1: retired %d, active %d (%v); want 10 and 2", len(ans.Retired), ans.Active, err)
	}
}

// TestRecordsPluginHookInput: retrieve reads the plugin's hook input
// (user_prompt, cwd) and candidate its --new-info-file rules.
func TestRecordsPluginHookInput(t *testing.T) {
	s := newPluginStore(t)
	s.file(".claude/memory/decisions/pick-sqlite.json", pluginRecord)
	if res := s.run("", "", "records", "index", "--root", s.root, "--rebuild"); res.Code != 0 {
		t.Fatalf("%+v", res)
	}
	prompt := func(key string) string {
		return fmt.Sprintf(`{%q: "why did we pick sqlite for the cache?", "cwd": %q}`, key, s.project)
	}
	elsewhere := t.TempDir()
	s.golden("retrieve-user-prompt", s.run(elsewhere, prompt("user_prompt"), "records", "retrieve"))
	s.golden("retrieve-prompt", s.run(elsewhere, prompt("prompt"), "records", "retrieve"))
	s.file(".claude/memory/memory-config.json", `{"categories": {"decision": {"description": "Choices with \"why\" & <rationale>"},
 "Run-Book!": {"description": "How to operate"}, "preference": {"description": ""}}}`)
	s.golden("retrieve-descriptions", s.run(elsewhere, prompt("user_prompt"), "records", "retrieve"))

	info := s.file("notes/info.txt", "sqlite cache decision")
	s.golden("candidate-file-wins", s.run("", "", "records", "candidate", "--category", "decision", "--root", s.root,
		"--new-info", "unrelated words entirely", "--new-info-file", info))
	s.golden("candidate-file-missing", s.run("", "", "records", "candidate", "--category", "decision", "--root", s.root,
		"--new-info-file", filepath.Join(s.project, "notes", "absent.txt")))
}
