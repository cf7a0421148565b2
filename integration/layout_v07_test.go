package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// v07Tree writes a zylos v0.7 memory tree: the three injected files (the
// given contents; "" leaves a file out) and the rest of the layout.
func v07Tree(tb testing.TB, identity, state, references string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "zylos")
	files := map[string]string{
		"memory/identity.md":               identity,
		"memory/state.md":                  state,
		"memory/references.md":             references,
		"memory/reference/ideas.md":        "# Ideas\n\n(No ideas yet.)\n",
		"memory/users/default/profile.md":  "# User Profile: Ada\n",
		"memory/sessions/current.md":       "# Session Log: 2026-03-15\n\n",
		"memory/reference/decisions.md":    "# Decisions Log\n\n(No decisions yet.)\n",
		"memory/reference/projects.md":     "# Projects\n\n## Active\n\n## Completed\n",
		"memory/reference/preferences.md":  "# Shared Preferences\n",
		".claude/skills/telegram/.keep":    "",
		"memory/archive/.gitkeep":          "",
		"memory/sessions/2026-03-14.md":    "# Session Log: 2026-03-14\n\n**09:00** - started\n",
		"memory/reference/.hidden-note.md": "skipped\n",
	}
	for rel, content := range files {
		if content == "" && strings.HasSuffix(rel, ".md") && !strings.Contains(rel, "/.") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

const (
	sampleIdentity   = "# Identity\n\n## Who I Am\nI am Zylos.\n\n## Principles\n- Honesty over comfort\n"
	sampleState      = "# Active State\n\nLast updated: 2026-03-15\n\n## Current Focus\nShipping the installer.\n"
	sampleReferences = "# References\n\n## Key Paths\n- Memory: ~/zylos/memory/\n"
)

// TestV07Init: init seeds the layout a home has; a new home gets the one
// asked for; a core.md never lands in a v0.7 home.
func TestV07Init(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "zylos")
	r := testutil.Run{ZylosDir: dir}
	got := transcript(t, r, args("init --layout v07"), args("init"), args("init --layout v2"), args("init --layout v3"))
	partial := v07Tree(t, sampleIdentity, "", "")
	os.RemoveAll(filepath.Join(partial, "memory", "reference"))
	got = append(got, transcript(t, testutil.Run{ZylosDir: partial}, args("init"))...)
	testutil.Golden(t, "testdata/v07/init.golden", got)
	for _, home := range []string{dir, partial} {
		if _, err := os.Stat(filepath.Join(home, "memory", "core.md")); !os.IsNotExist(err) {
			t.Errorf("core.md seeded into the v0.7 home %s", home)
		}
		if _, err := os.Stat(filepath.Join(home, "memory", "users", "default", "profile.md")); err != nil {
			t.Errorf("no users/default/profile.md in %s: %v", home, err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(partial, "memory", "identity.md")); string(data) != sampleIdentity {
		t.Errorf("init overwrote identity.md: %q", data)
	}
}

// TestV07SessionStart holds what a v0.7 home injects: the three sections,
// the C4 part in v0.7.1's framing and its threshold (15), and the hook
// answer in the same contract as a v2 home.
func TestV07SessionStart(t *testing.T) {
	dir := v07Tree(t, sampleIdentity, sampleState, "")
	dbPath := filepath.Join(dir, "comm-bridge", "c4.db")
	r := testutil.Run{ZylosDir: dir}
	r.Exec(t, "c4", "init")
	db := rawDB(t, dbPath)
	insertConvs(t, db, numbered(15))
	db.Close()
	got := transcript(t, r, args("inject"), args("inject --format v2"), args("c4 session-init"), args("c4 threshold-check"))
	db = rawDB(t, dbPath)
	insertConvs(t, db, numbered(1))
	db.Close()
	got = append(got, transcript(t, r, args("c4 session-init"), args("c4 threshold-check"), args("c4 session-init --threshold 16"))...)
	r.Env = []string{"C4_SYNC_THRESHOLD=20"}
	got = append(got, transcript(t, r, args("c4 threshold-check"))...)
	r.Env, r.Stdin = nil, `{"hook_event_name":"SessionStart","source":"startup","session_id":"s1"}`
	got = append(got, transcript(t, r, args("hook session-start"))...)
	testutil.Golden(t, "testdata/v07/session-start.golden", got)
}

// TestV07SessionStartBudgets: an 18 KB identity.md and a 12 KB state.md are
// each cut within their share, with a marker naming the file; the answer
// stays under Claude Code's 10,000 characters.
func TestV07SessionStartBudgets(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	dir := v07Tree(t, "# Identity\n"+strings.Repeat(line, 180), "# Active State\n"+strings.Repeat(line, 120), sampleReferences)
	r := testutil.Run{ZylosDir: dir, Stdin: `{"hook_event_name":"SessionStart","source":"startup"}`}
	for _, cmd := range [][]string{args("hook session-start"), args("inject --format claude")} {
		res := r.Exec(t, cmd...)
		var ans struct {
			HookSpecificOutput struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(res.Stdout), &ans); err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, res.Stdout)
		}
		text := ans.HookSpecificOutput.AdditionalContext
		if n := len(utf16.Encode([]rune(text))); n >= 10000 {
			t.Errorf("%v: %d characters", cmd, n)
		}
		for _, want := range []string{"Read the rest with the Read tool: " + filepath.Join(dir, "memory", "identity.md"),
			"Read the rest with the Read tool: " + filepath.Join(dir, "memory", "state.md"),
			"=== REFERENCES ===\n# References\n\n## Key Paths\n- Memory: ~/zylos/memory/\n=== END REFERENCES ==="} {
			if !strings.Contains(text, want) {
				t.Errorf("%v: no %q", cmd, want)
			}
		}
	}
}

// TestV07Reports holds status, memory-status, consolidate and rotate of a
// v0.7 home in golden files: v0.7.1's budgets (an 18 KB identity.md over,
// a 12 KB state.md near), its report and its rotation wording.
func TestV07Reports(t *testing.T) {
	line := strings.Repeat("y", 79) + "\n"
	dir := v07Tree(t, "# Identity\n"+strings.Repeat(line, 230), "# Active State\n"+strings.Repeat(line, 150), "")
	os.WriteFile(filepath.Join(dir, "memory", "sessions", "2026-01-02.md"), []byte("# Session Log: 2026-01-02\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "memory", "sessions", "current.md"), []byte("# Session Log: 2026-03-14\n\n**23:50** - late\n"), 0o644)
	stamp := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	filepath.WalkDir(filepath.Join(dir, "memory"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, stamp, stamp)
			stamp = stamp.Add(36 * time.Hour)
		}
		return nil
	})
	r := testutil.Run{ZylosDir: dir}
	got := transcript(t, r, args("memory-status"), args("consolidate"), args("rotate"), args("rotate"))
	got = []byte(strings.ReplaceAll(string(got), filepath.Join(dir, "memory"), "$ZYLOS_DIR/memory"))
	testutil.Golden(t, "testdata/v07/reports.golden", got)
}

// TestV07WeeklyConsolidation: in a v0.7 home the weekly task writes
// v0.7.1's report and asks for a review when a file is over its budget.
func TestV07WeeklyConsolidation(t *testing.T) {
	dir := v07Tree(t, "# Identity\n"+strings.Repeat(strings.Repeat("y", 79)+"\n", 230), sampleState, sampleReferences)
	r := testutil.Run{ZylosDir: dir}
	if res := r.Exec(t, "init"); res.Code != 0 {
		t.Fatal(res.Stderr)
	}
	res := r.Exec(t, "scheduler", "trigger", "memory-consolidation-weekly")
	if res.Code != 0 || !strings.Contains(res.Stdout, "report ") {
		t.Fatalf("trigger: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	report, err := os.ReadFile(filepath.Join(dir, "memory", ".state", "reports", "consolidation-2026-03-15.json"))
	if err != nil || !strings.Contains(string(report), `"overBudget": [`+"\n"+`      "identity.md"`) {
		t.Errorf("report: %v\n%s", err, report)
	}
	res = r.Exec(t, "c4", "fetch", "--unsummarized")
	if !strings.Contains(res.Stdout, "The weekly memory consolidation report has 1 recommendation(s).") {
		t.Errorf("no review request queued:\n%s", res.Stdout)
	}
}

// TestV07SyncRequest: the periodic sync request of a v0.7 home is v0.7.1's
// instruction, and a pending one still holds back the next.
func TestV07SyncRequest(t *testing.T) {
	dir := v07Tree(t, sampleIdentity, sampleState, sampleReferences)
	r := testutil.Run{ZylosDir: dir, Env: []string{"ZYLOS_MEMORY_NOW="}} // a trigger's slot is its second
	if res := r.Exec(t, "init"); res.Code != 0 {
		t.Fatal(res.Stderr)
	}
	db := rawDB(t, filepath.Join(dir, "comm-bridge", "c4.db"))
	insertConvs(t, db, numbered(3))
	db.Close()
	res := r.Exec(t, "scheduler", "trigger", "memory-sync-periodic")
	if res.Code != 0 || !strings.Contains(res.Stdout, ": ok ") {
		t.Fatalf("trigger: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	res = r.Exec(t, "c4", "fetch", "--begin", "4", "--end", "4")
	if !strings.Contains(res.Stdout, "[Action Required] There are 3 unsummarized conversations (conversation id 1 ~ 3). Please use zylos-memory skill to process them.\n") {
		t.Errorf("queued request:\n%s", res.Stdout)
	}
	time.Sleep(1100 * time.Millisecond) // the next slot of a trigger
	res = r.Exec(t, "scheduler", "trigger", "memory-sync-periodic")
	if !strings.Contains(res.Stdout, "skipped (trigger: a sync request is still pending in C4)") {
		t.Errorf("second trigger: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}

// TestBareHomeLayout: a home without memory files is today's zylos
// (v0.7.1) to every command but init, which still seeds its own v2
// layout there; ZYLOS_MEMORY_LAYOUT (environment, else .env) names the
// layout of such a home; a value that names none is a one-line error.
func TestBareHomeLayout(t *testing.T) {
	bare := func(t *testing.T, env ...string) testutil.Run {
		dir := filepath.Join(t.TempDir(), "zylos")
		os.MkdirAll(filepath.Join(dir, "memory", "sessions"), 0o755)
		os.WriteFile(filepath.Join(dir, "memory", "sessions", "current.md"), []byte("# Session Log: 2026-03-14\n"), 0o644)
		return testutil.Run{ZylosDir: dir, Env: append([]string{"ZYLOS_MEMORY_LAYOUT="}, env...)}
	}
	t.Run("today's zylos", func(t *testing.T) {
		r := bare(t)
		res := r.Exec(t, "rotate")
		if res.Stdout != "Rotated current.md -> 2026-03-14.md\nCreated fresh current.md for 2026-03-15\n" || res.Code != 0 {
			t.Errorf("rotate: %+v", res)
		}
		if res := r.Exec(t, "c4", "checkpoint", "1"); res.Code != 1 || !strings.Contains(res.Stderr, "Error: unknown command: 1") {
			t.Errorf("v0.7.1 takes no bare id: %+v", res)
		}
	})
	t.Run("setting in the environment", func(t *testing.T) {
		res := bare(t, "ZYLOS_MEMORY_LAYOUT=v2").Exec(t, "rotate")
		if res.Stdout != "Rotated: current.md -> 2026-03-14.md\nCreated fresh current.md for 2026-03-15\n" {
			t.Errorf("rotate: %+v", res)
		}
	})
	t.Run("setting in .env", func(t *testing.T) {
		r := bare(t)
		os.WriteFile(filepath.Join(r.ZylosDir, ".env"), []byte("ZYLOS_MEMORY_LAYOUT=v2\n"), 0o644)
		if res := r.Exec(t, "c4", "checkpoint", "1"); res.Code != 0 || !strings.HasPrefix(res.Stdout, "Checkpoint created: ") {
			t.Errorf("a v2 home takes a bare id: %+v", res)
		}
	})
	t.Run("init seeds v2", func(t *testing.T) {
		r := bare(t)
		if res := r.Exec(t, "init"); res.Code != 0 {
			t.Fatalf("init: %+v", res)
		}
		if _, err := os.Stat(filepath.Join(r.ZylosDir, "memory", "core.md")); err != nil {
			t.Errorf("init did not seed core.md: %v", err)
		}
		if res := r.Exec(t, "c4", "checkpoint", "1"); res.Code != 0 {
			t.Errorf("a v2 home takes a bare id: %+v", res)
		}
	})
	t.Run("bad setting", func(t *testing.T) {
		res := bare(t, "ZYLOS_MEMORY_LAYOUT=v3").Exec(t, "status")
		if res.Code != 1 || res.Stdout != "" || strings.Count(res.Stderr, "\n") != 1 || !strings.Contains(res.Stderr, `unknown layout "v3"`) {
			t.Errorf("status: %+v", res)
		}
	})
}
