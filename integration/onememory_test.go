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

// memHome is an initialised zylos home for the one-memory tests.
type memHome struct {
	*recHome
}

func newMemHome(t *testing.T) memHome {
	t.Helper()
	h := memHome{newRecHome(t)}
	if res := h.run(nil, "init"); res.Code != 0 {
		t.Fatalf("init: %s", resultText(res))
	}
	return h
}

func (h memHome) path(rel string) string { return filepath.Join(h.zylos, rel) }

func (h memHome) read(rel string) string {
	h.t.Helper()
	data, err := os.ReadFile(h.path(rel))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(data)
}

func (h memHome) write(rel, content string) {
	h.t.Helper()
	if err := os.WriteFile(h.path(rel), []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// edited runs the PostToolUse hook as Claude Code does after an Edit of rel.
func (h memHome) edited(rel string) testutil.Result {
	h.t.Helper()
	payload := fmt.Sprintf(`{"hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":%q},"cwd":%q}`,
		h.path(rel), h.zylos)
	return testutil.Run{ZylosDir: h.zylos, Dir: h.zylos, Stdin: payload}.Exec(h.t, "hook", "post-tool-use", "--timeout", "5s")
}

func (h memHome) record(rel string) map[string]any {
	h.t.Helper()
	var d map[string]any
	if err := json.Unmarshal([]byte(h.read(rel)), &d); err != nil {
		h.t.Fatal(err)
	}
	return d
}

func (h memHome) must(res testutil.Result, what string) testutil.Result {
	h.t.Helper()
	if res.Code != 0 {
		h.t.Fatalf("%s: %s", what, resultText(res))
	}
	return res
}

const (
	decisionsMD = "memory/reference/decisions.md"
	sqliteRec   = "memory/records/decisions/use-sqlite-for-c4.json"
)

const handDecision = `
### [2025-11-01] Use SQLite for C4
- **Decision:** SQLite in WAL mode
- **Context:** one writer, many readers
- **Status:** active
`

// TestOneMemoryWalkThrough is the user's path through one memory with two
// views, step by step, with the real binary.
func TestOneMemoryWalkThrough(t *testing.T) {
	h := newMemHome(t)
	template := h.read(decisionsMD)

	// 1. A decision written by hand reaches the records index.
	h.write(decisionsMD, template+handDecision)
	res := h.edited(decisionsMD)
	if res.Code != 0 || res.Stdout != "" || !strings.Contains(res.Stderr, "[INGEST] created "+sqliteRec) {
		t.Fatalf("hook after the hand edit: %s", resultText(res))
	}
	res = h.must(h.run(nil, "records", "index", "--query", "sqlite"), "index --query")
	if !strings.Contains(res.Stdout, "- [DECISION] Use SQLite for C4 -> "+sqliteRec) {
		t.Fatalf("index --query: %s", res.Stdout)
	}
	if got := h.read(decisionsMD); got != template+strings.Replace(handDecision, "C4\n", "C4\n<!-- id: use-sqlite-for-c4 -->\n", 1) {
		t.Fatalf("decisions.md after ingest:\n%s", got)
	}

	// 2. records write update changes decisions.md, in place.
	in := h.edit(sqliteRec, func(d map[string]any) {
		d["content"].(map[string]any)["status"] = "superseded"
		withChange(d)
	})
	h.must(h.run(nil, "records", "write", "--action", "update", "--target", sqliteRec, "--input", in,
		"--hash", h.hash(sqliteRec)), "update")
	if got := h.read(decisionsMD); !strings.HasSuffix(got, "- **Context:** one writer, many readers\n- **Status:** superseded\n") {
		t.Fatalf("decisions.md after update:\n%s", got)
	}

	// 3. Deleting it by hand retires the record; restore puts it back.
	h.write(decisionsMD, template)
	h.must(h.edited(decisionsMD), "hook after the deletion")
	rec := h.record(sqliteRec)
	if rec["record_status"] != "retired" || rec["retired_reason"] != "entry removed from memory/reference/decisions.md" {
		t.Fatalf("record after the deletion: %v %v", rec["record_status"], rec["retired_reason"])
	}
	h.must(h.run(nil, "records", "write", "--action", "restore", "--target", sqliteRec), "restore")
	if got := h.read(decisionsMD); !strings.Contains(got, "### [2025-11-01] Use SQLite for C4\n<!-- id: use-sqlite-for-c4 -->\n") {
		t.Fatalf("decisions.md after restore:\n%s", got)
	}

	// 4. consolidate --apply archives it, file and record.
	res = h.must(h.run(nil, "consolidate", "--apply"), "consolidate --apply")
	if !strings.Contains(res.Stdout, `archived decision reference/decisions.md:9 "Use SQLite for C4" -> archive/decisions-2025.md`) ||
		!strings.Contains(res.Stdout, "record archived "+sqliteRec) {
		t.Fatalf("consolidate --apply: %s", resultText(res))
	}
	if got := h.read("memory/archive/decisions-2025.md"); !strings.Contains(got, "<!-- id: use-sqlite-for-c4 -->\n- **Decision:** SQLite in WAL mode\n") {
		t.Fatalf("archive file:\n%s", got)
	}
	if got := h.read(decisionsMD); got != template+"\n" { // the blank line the render put before it
		t.Fatalf("decisions.md after apply:\n%s", got)
	}
	rec = h.record(sqliteRec)
	if rec["record_status"] != "archived" || rec["archived_at"] == nil {
		t.Fatalf("record after apply: %v", rec)
	}
	// Idempotent: a second run does nothing, and ingest agrees.
	if res := h.must(h.run(nil, "consolidate", "--apply"), "second apply"); res.Stdout != "Nothing to archive.\n" {
		t.Fatalf("second apply: %s", res.Stdout)
	}
	if res := h.must(h.run(nil, "records", "ingest"), "ingest"); res.Stdout != "Nothing to ingest: the reference tier and the records agree.\n" {
		t.Fatalf("ingest: %s", res.Stdout)
	}
}

// TestIngestDryRunChangesNothing: --dry-run says what would happen and
// leaves every file as it was.
func TestIngestDryRunChangesNothing(t *testing.T) {
	h := newMemHome(t)
	h.write(decisionsMD, h.read(decisionsMD)+handDecision)
	before := testutil.Tree(t, h.path("memory"))
	res := h.must(h.run(nil, "records", "ingest", "--dry-run"), "dry run")
	if res.Stdout != "would have created "+sqliteRec+` "Use SQLite for C4" (memory/reference/decisions.md:9)`+"\n" {
		t.Fatalf("dry run: %s", resultText(res))
	}
	if after := testutil.Tree(t, h.path("memory")); after != before {
		t.Fatalf("dry run changed files:\n%s", testutil.Diff(before, after))
	}
	res = h.must(h.run(nil, "records", "ingest", "--json"), "ingest --json")
	var rep struct {
		Changes  []map[string]any `json:"changes"`
		Problems []map[string]any `json:"problems"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &rep); err != nil || len(rep.Changes) != 1 || rep.Problems == nil {
		t.Fatalf("ingest --json: %v %s", err, res.Stdout)
	}
}

// TestMigrationJoinsAndKeepsConflicts: a home with a records store and
// hand-written entries of the same titles joins them; where they differ,
// both are kept and the conflict reported.
func TestMigrationJoinsAndKeepsConflicts(t *testing.T) {
	h := newMemHome(t)
	// Records first, written while the home had no reference tier.
	os.RemoveAll(h.path("memory/reference"))
	h.create("same", "Same title")
	h.create("differs", "Different content")
	h.create("lonely", "Only a record")
	os.Mkdir(h.path("memory/reference"), 0o755)
	h.write(decisionsMD, `# Decisions Log

### [2026-03-15] Same title
- **Decision:** d
- **Context:** c
- **Status:** active

### [2026-03-15] Different content
- **Decision:** something else
- **Context:** c
- **Status:** active
`)
	res := h.must(h.run(nil, "records", "ingest"), "ingest")
	for _, want := range []string{
		`joined memory/records/decisions/same.json "Same title"`,
		`conflict memory/records/decisions/different-content.json "Different content" (memory/reference/decisions.md:8): differs from memory/records/decisions/differs.json`,
		`rendered memory/records/decisions/differs.json "Different content"`,
		`rendered memory/records/decisions/lonely.json "Only a record"`,
	} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("ingest output lacks %q:\n%s", want, res.Stdout)
		}
	}
	got := h.read(decisionsMD)
	for _, want := range []string{"<!-- id: same -->", "<!-- id: different-content -->", "<!-- id: differs -->", "<!-- id: lonely -->", "- **Decision:** something else"} {
		if !strings.Contains(got, want) {
			t.Errorf("decisions.md lacks %q:\n%s", want, got)
		}
	}
	if res := h.must(h.run(nil, "records", "ingest"), "second ingest"); !strings.HasPrefix(res.Stdout, "Nothing to ingest") {
		t.Fatalf("second ingest: %s", res.Stdout)
	}
}

// TestPluginRootKeepsNoView: a .claude/memory root is a standalone store;
// writing to it leaves the reference tier alone.
func TestPluginRootKeepsNoView(t *testing.T) {
	h := newMemHome(t)
	before := h.read(decisionsMD)
	project := filepath.Join(t.TempDir(), "proj")
	in := filepath.Join(os.TempDir(), fmt.Sprintf(".memory-write-pending-onememory-%d.json", os.Getpid()))
	if err := os.WriteFile(in, []byte(`{"title":"Plugin decision","tags":["p"],"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(in)
	target := filepath.Join(project, ".claude", "memory", "decisions", "plugin-decision.json")
	h.must(h.run(nil, "records", "write", "--action", "create", "--category", "decision", "--target", target, "--input", in), "plugin create")
	if got := h.read(decisionsMD); got != before {
		t.Fatalf("a plugin-root write changed decisions.md:\n%s", got)
	}
}

// TestConsolidateEntriesThroughRecords: the --entries report judges the
// reference tier as consolidate --apply's ingest would leave it and names
// the record behind each candidate, changing nothing; --apply then
// archives exactly those records.
func TestConsolidateEntriesThroughRecords(t *testing.T) {
	h := newMemHome(t)
	template := h.read(decisionsMD)
	// A record written while the home had no reference tier: the next
	// ingest renders it.
	os.RemoveAll(h.path("memory/reference"))
	in := h.stage("old.json", `{"title":"Old record","tags":["t"],
 "content":{"status":"superseded","date":"2025-10-01","context":"c","decision":"d","rationale":["r"]}}`)
	h.must(h.run(nil, "records", "write", "--action", "create", "--category", "decision",
		"--target", "memory/records/decisions/old-record.json", "--input", in), "create")
	os.Mkdir(h.path("memory/reference"), 0o755)
	h.write(decisionsMD, template+strings.Replace(handDecision, "active", "superseded", 1))

	type candidate struct {
		File, Title, Record, Ingest string
		Line                        int
	}
	stale := func() []candidate {
		t.Helper()
		before := testutil.Tree(t, h.path("memory"))
		res := h.must(h.run(nil, "consolidate", "--entries"), "consolidate --entries")
		if after := testutil.Tree(t, h.path("memory")); after != before {
			t.Fatalf("consolidate --entries changed files:\n%s", testutil.Diff(before, after))
		}
		var rep struct {
			Entries struct{ StaleDecisions []candidate } `json:"entries"`
		}
		if err := json.Unmarshal([]byte(res.Stdout), &rep); err != nil {
			t.Fatalf("report: %v\n%s", err, res.Stdout)
		}
		return rep.Entries.StaleDecisions
	}
	want := []candidate{
		{File: "reference/decisions.md", Line: 9, Title: "Use SQLite for C4", Record: sqliteRec, Ingest: "created"},
		{File: "reference/decisions.md", Line: 0, Title: "Old record", Record: "memory/records/decisions/old-record.json", Ingest: "rendered"},
	}
	if got := stale(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("before ingest:\n got %v\nwant %v", got, want)
	}

	// Once ingested, each candidate is its record, in step.
	h.must(h.run(nil, "records", "ingest"), "ingest")
	want = []candidate{
		{File: "reference/decisions.md", Line: 9, Title: "Use SQLite for C4", Record: sqliteRec},
		{File: "reference/decisions.md", Line: 15, Title: "Old record", Record: "memory/records/decisions/old-record.json"},
	}
	if got := stale(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after ingest:\n got %v\nwant %v", got, want)
	}

	// A hand edit not ingested yet is named as the update --apply makes
	// first; an entry whose Status is no longer stale drops out.
	md := h.read(decisionsMD)
	md = strings.Replace(md, "one writer, many readers", "one writer", 1)
	md = strings.Replace(md, "- **Status:** superseded\n", "- **Status:** active\n", 2)
	h.write(decisionsMD, strings.Replace(md, "- **Status:** active\n", "- **Status:** superseded\n", 1))
	want = []candidate{{File: "reference/decisions.md", Line: 9, Title: "Use SQLite for C4", Record: sqliteRec, Ingest: "updated"}}
	if got := stale(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after a hand edit:\n got %v\nwant %v\n%s", got, want, h.read(decisionsMD))
	}

	// --apply archives what the report named, record and entry.
	res := h.must(h.run(nil, "consolidate", "--apply"), "consolidate --apply")
	if !strings.Contains(res.Stdout, "record archived "+sqliteRec) || strings.Contains(res.Stdout, "record archived memory/records/decisions/old-record") {
		t.Fatalf("consolidate --apply: %s", resultText(res))
	}
	if got := stale(); len(got) != 0 {
		t.Fatalf("after apply: %v", got)
	}
}
