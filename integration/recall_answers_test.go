package integration

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestSearchLongQueryIsNotEchoed: a 128 KB query that matches nothing is
// repeated by its start only.
func TestSearchLongQueryIsNotEchoed(t *testing.T) {
	zd := searchHome(t)
	res := testutil.Run{ZylosDir: zd}.Exec(t, "search", strings.Repeat("xylophone ", 128<<10/10))
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, `Nothing in memory matches "xylophone xylophone`) ||
		len(res.Stdout) > 200 || !strings.HasSuffix(res.Stdout, "…\"\n") {
		t.Errorf("exit %d, %d bytes: %.300q", res.Code, len(res.Stdout), res.Stdout)
	}
}

// promptContext runs the prompt hook on zd and returns what it injects
// ("" for no answer), failing on anything but exit 0.
func promptContext(t *testing.T, zd, text string) string {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": text})
	res := testutil.Run{ZylosDir: zd, Stdin: string(in)}.Exec(t, "hook", "user-prompt-submit")
	if res.Code != 0 {
		t.Fatalf("exit %d stderr %q", res.Code, res.Stderr)
	}
	if strings.TrimSpace(res.Stdout) == "" {
		return ""
	}
	var out struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("%v: %q", err, res.Stdout)
	}
	return out.HookSpecificOutput.AdditionalContext
}

// freshHome is a home just made by init, in layout.
func freshHome(t *testing.T, layout string) string {
	t.Helper()
	zd := filepath.Join(t.TempDir(), "zylos")
	if res := (testutil.Run{ZylosDir: zd}).Exec(t, "init", "--layout", layout); res.Code != 0 {
		t.Fatalf("init: %+v", res)
	}
	return zd
}

// TestFreshHomeInjectsNothing: the headings, intro text and format
// instructions init writes are no memories.
func TestFreshHomeInjectsNothing(t *testing.T) {
	for _, layout := range []string{"v2", "v07"} {
		zd := freshHome(t, layout)
		for _, p := range []string{"what are the key decisions for active projects?", "any preferences recorded yet?",
			"show me the decisions log format", "what ideas do we have for memory sync?"} {
			if got := promptContext(t, zd, p); got != "" {
				t.Errorf("%s, %q injected:\n%s", layout, p, got)
			}
		}
		res := testutil.Run{ZylosDir: zd}.Exec(t, "search", "decisions", "projects", "preferences", "active", "format")
		if res.Code != 0 || !strings.HasPrefix(res.Stdout, "Nothing in memory matches") {
			t.Errorf("%s search: %+v", layout, res)
		}
	}
}

// answerHome is a home with a decision, a project and a preference in the
// reference tier (ingested into records), session logs and a C4 row.
func answerHome(t *testing.T) string {
	zd := freshHome(t, "v2")
	ref := filepath.Join(zd, "memory", "reference")
	appendFile(t, filepath.Join(ref, "decisions.md"), "\n### [2026-11-20] Use Postgres for the ledger\n"+
		"- **Decision:** PostgreSQL 16 with serializable transactions\n"+
		"- **Context:** The ledger needs strict consistency across accounts\n- **Status:** active\n")
	appendFile(t, filepath.Join(ref, "projects.md"), "\n### Ledger migration\n- **Status:** active\n"+
		"- **Updated:** 2026-11-21\n- **Notes:** next step is the dry run on staging\n")
	appendFile(t, filepath.Join(ref, "preferences.md"), "\n### Ledger report format\n- **Value:** CSV with ISO dates\n"+
		"- **Source:** user\n- **Added:** 2026-11-19\n")
	if res := (testutil.Run{ZylosDir: zd}).Exec(t, "records", "ingest"); res.Code != 0 {
		t.Fatalf("ingest: %+v", res)
	}
	var log strings.Builder
	log.WriteString("# Session Log: 2026-11-18\n\n")
	for i := range 12 {
		fmt.Fprintf(&log, "**09:%02d** - checked the ledger import batch %d\n", i, i)
	}
	testutil.WriteFile(t, filepath.Join(zd, "memory", "sessions", "2026-11-18.md"), log.String())
	for i, day := range []string{"2026-11-10", "2026-11-11", "2026-11-12"} {
		testutil.WriteFile(t, filepath.Join(zd, "memory", "sessions", day+".md"),
			fmt.Sprintf("# Session Log: %s\n\n**1%d:00** - the ledger import failed on row %d\n", day, i, i))
	}
	testutil.WriteFile(t, filepath.Join(zd, "memory", "sessions", "2026-11-13.md"), "# Session Log: 2026-11-13\n\n"+
		"**09:00** - 我们决定使用数据库迁移方案\n**09:10** - 東京のサーバーを再起動した\n**09:20** - 회의록을 정리했습니다\n")
	return zd
}

// TestPromptHookAnswersWithWords: each memory injected carries what it
// says, in the order that answers, with its cite; the whole answer stays
// within the 1,500-character budget.
func TestPromptHookAnswersWithWords(t *testing.T) {
	zd := answerHome(t)
	got := promptContext(t, zd, "what did we decide about the ledger database?")
	for _, want := range []string{
		"- [DECISION] Use Postgres for the ledger — Decision: PostgreSQL 16 with serializable transactions | " +
			"Context: The ledger needs strict consistency across accounts",
		"-> memory/records/decisions/use-postgres-for-the-ledger.json\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	got = promptContext(t, zd, "what is the ledger migration status and report format?")
	for _, want := range []string{"[PROJECT] Ledger migration — Status: active | Notes: next step is the dry run on staging",
		"[PREFERENCE] Ledger report format — Value: CSV with ISO dates"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if n := utf8.RuneCountInString(got); n > 1500 {
		t.Errorf("%d characters", n)
	}
}

// TestPromptHookFiveHitsFivePlaces: a log of many matching lines is one
// memory with its best lines; the other days that match are shown too.
func TestPromptHookFiveHitsFivePlaces(t *testing.T) {
	zd := answerHome(t)
	got := promptContext(t, zd, "ledger import batch row failed")
	if n := strings.Count(got, "memory/sessions/2026-11-18.md:"); n != 1 {
		t.Errorf("the busy log is cited %d times:\n%s", n, got)
	}
	for _, day := range []string{"2026-11-10", "2026-11-11", "2026-11-12"} {
		if !strings.Contains(got, "memory/sessions/"+day+".md:3") {
			t.Errorf("%s missing:\n%s", day, got)
		}
	}
	if !strings.Contains(got, "[SESSIONS 2026-11-18] 09:") || strings.Count(got, "checked the ledger import batch") < 2 {
		t.Errorf("the busy log's line lacks its time or its next lines:\n%s", got)
	}
}

// TestPromptHookBudget: many long memories fit the budget, each whole or
// cut at a word with an ellipsis, the query's words kept; a smaller
// retrieval.excerpt_chars is honoured.
func TestPromptHookBudget(t *testing.T) {
	zd := freshHome(t, "v2")
	filler := strings.Repeat("unrelated words about other things ", 30)
	for i := range 8 {
		testutil.WriteFile(t, filepath.Join(zd, "memory", "sessions", fmt.Sprintf("2026-11-%02d.md", i+1)),
			fmt.Sprintf("# Session Log: 2026-11-%02d\n\n**10:00** - %s then the walrus tank number %d was cleaned\n", i+1, filler, i))
	}
	got := promptContext(t, zd, "when was the walrus tank cleaned?")
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if n := utf8.RuneCountInString(got); n > 1500 || len(lines) < 5 {
		t.Fatalf("%d characters, %d lines:\n%s", n, len(lines), got)
	}
	for _, l := range lines[1 : len(lines)-1] {
		if !strings.Contains(l, "walrus tank") || !strings.Contains(l, "…") {
			t.Errorf("not cut around the query: %q", l)
		}
	}
	testutil.WriteFile(t, filepath.Join(zd, "memory", "records", "memory-config.json"), `{"retrieval":{"excerpt_chars":400}}`)
	if got := promptContext(t, zd, "when was the walrus tank cleaned?"); utf8.RuneCountInString(got) > 400 || !strings.Contains(got, "walrus") {
		t.Errorf("excerpt_chars 400: %d characters:\n%s", utf8.RuneCountInString(got), got)
	}
}

// TestPromptHookCJK: a Chinese, Japanese or Korean word inside a longer
// run is found and injected with its line.
func TestPromptHookCJK(t *testing.T) {
	zd := answerHome(t)
	for prompt, want := range map[string]string{
		"数据库的方案是什么？":           "09:00 - 我们决定使用数据库迁移方案 -> memory/sessions/2026-11-13.md:3",
		"東京で何があったのですか":         "09:10 - 東京のサーバーを再起動した -> memory/sessions/2026-11-13.md:4",
		"회의록 어디에 있나요?":         "09:20 - 회의록을 정리했습니다 -> memory/sessions/2026-11-13.md:5",
		"ledger 数据库 migration": "我们决定使用数据库迁移方案",
	} {
		if got := promptContext(t, zd, prompt); !strings.Contains(got, want) {
			t.Errorf("%q: missing %q in\n%s", prompt, want, got)
		}
	}
	res := testutil.Run{ZylosDir: zd}.Exec(t, "search", "東京")
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "memory/sessions/2026-11-13.md:4  2026-11-13  sessions\n") {
		t.Errorf("search 東京: %+v", res)
	}
}

// TestPromptHookBadInput: odd prompts and a 10 MB line of CJK without
// spaces answer in time, without an error.
func TestPromptHookBadInput(t *testing.T) {
	zd := answerHome(t)
	huge := strings.Repeat("数据库迁移方案東京サーバー회의록", 10<<20/48)
	testutil.WriteFile(t, filepath.Join(zd, "memory", "sessions", "2026-11-14.md"), "# Session Log: 2026-11-14\n\n**08:00** - "+huge+"\n")
	if res := (testutil.Run{ZylosDir: zd}).Exec(t, "reindex"); res.Code != 0 {
		t.Fatalf("reindex: %+v", res)
	}
	for _, p := range []string{"ledger 数据库 mixed スクリプト 회의 query", "数", "🎉🎉🎉 😀 launch party 🎉", "שלום, מה החלטנו לגבי ה-ledger?",
		"مرحبا ما هو قرار ledger", "\u202eledger decision reversed\u202c", huge[:1<<20]} {
		start := time.Now()
		in, _ := json.Marshal(map[string]string{"prompt": p})
		res := testutil.Run{ZylosDir: zd, Stdin: string(in)}.Exec(t, "hook", "user-prompt-submit")
		if res.Code != 0 || res.Stderr != "" || time.Since(start) > 2*time.Second {
			t.Errorf("%.40q: exit %d in %v, stderr %q", p, res.Code, time.Since(start), res.Stderr)
		}
		if ctx := res.Stdout; utf8.RuneCountInString(ctx) > 2000 {
			t.Errorf("%.40q: %d characters", p, utf8.RuneCountInString(ctx))
		}
	}
}
