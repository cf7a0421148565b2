package bridge

import (
	"slices"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/records"
)

const decisions = `# Decisions Log

Key decisions made during operation.

### [2026-03-01] Use SQLite for C4
- **Decision:** SQLite in WAL mode
- **Context:** one writer, many readers
- **Status:** active

Some prose the agent wrote under the entry.

### [2026-13-45] Impossible date
- **Decision:** x
- **Status:** active

### [2026-02-01] Drop Redis
- **Decision:** no cache
- **Status:** superseded by the SQLite decision
`

func TestIngestCreatesRecordsAndKeepsEveryByte(t *testing.T) {
	h := newHome(t, map[string]string{"reference/decisions.md": decisions})
	rep := mustIngest(t, h)
	if len(rep.Changes) != 2 {
		t.Fatalf("changes = %v", rep.Changes)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Line != 12 || !strings.Contains(rep.Problems[0].Problem, "invalid heading date") {
		t.Fatalf("problems = %v", rep.Problems)
	}
	got := testutil.ReadFile(t, h.ref("decisions.md"))
	if withoutIDs(got) != decisions {
		t.Fatalf("file changed beyond the id comments:\n%s", got)
	}
	if !strings.Contains(got, "### [2026-03-01] Use SQLite for C4\n<!-- id: use-sqlite-for-c4 -->\n") {
		t.Fatalf("no id comment:\n%s", got)
	}
	r, err := records.ReadRecord(h.recordPath("decision", "use-sqlite-for-c4"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Content["status"] != "accepted" || r.Content["date"] != "2026-03-01" || r.Content["decision"] != "SQLite in WAL mode" {
		t.Fatalf("content = %v", r.Content)
	}
	r2, err := records.ReadRecord(h.recordPath("decision", "drop-redis"))
	if err != nil || r2.Content["status"] != "superseded" {
		t.Fatalf("drop-redis = %v, %v", r2, err)
	}
	// A second ingest finds nothing to do and leaves the file alone.
	rep = mustIngest(t, h)
	if len(rep.Changes) != 0 || testutil.ReadFile(t, h.ref("decisions.md")) != got {
		t.Fatalf("second ingest: %v", rep.Changes)
	}
}

func TestHandEditUpdatesRetiresAndRestores(t *testing.T) {
	h := newHome(t, map[string]string{"reference/decisions.md": decisions})
	mustIngest(t, h)
	path := h.ref("decisions.md")
	src := testutil.ReadFile(t, path)
	testutil.WriteFile(t, path, strings.Replace(src, "one writer, many readers", "one writer, many readers, no server", 1))
	rep := mustIngest(t, h)
	if len(rep.Changes) != 1 || rep.Changes[0].Action != "updated" {
		t.Fatalf("changes = %v", rep.Changes)
	}
	r, _ := records.ReadRecord(h.recordPath("decision", "use-sqlite-for-c4"))
	if r.Content["context"] != "one writer, many readers, no server" || r.TimesUpdated != 1 {
		t.Fatalf("record = %+v", r)
	}
	// Deleting the entry by hand retires its record.
	src = testutil.ReadFile(t, path)
	start := strings.Index(src, "### [2026-02-01] Drop Redis")
	testutil.WriteFile(t, path, src[:start])
	rep = mustIngest(t, h)
	if len(rep.Changes) != 1 || rep.Changes[0].Action != "retired" || !strings.Contains(rep.Changes[0].Detail, "memory/reference/decisions.md") {
		t.Fatalf("changes = %v", rep.Changes)
	}
	r, _ = records.ReadRecord(h.recordPath("decision", "drop-redis"))
	if r.Status() != records.StatusRetired {
		t.Fatalf("status = %s", r.Status())
	}
	// Restoring it puts the entry back in the file.
	h.write(t, writeOp{Action: "restore", Target: h.recordPath("decision", "drop-redis")})
	got := testutil.ReadFile(t, path)
	if !strings.Contains(got, "### [2026-02-01] Drop Redis\n<!-- id: drop-redis -->\n- **Decision:** no cache\n- **Status:** superseded\n") {
		t.Fatalf("restored file:\n%s", got)
	}
	if rep := mustIngest(t, h); len(rep.Changes) != 0 {
		t.Fatalf("ingest after restore: %v", rep.Changes)
	}
}

func TestWriteRendersCreateUpdateArchive(t *testing.T) {
	h := newHome(t, map[string]string{"reference/projects.md": "# Projects\n\n## Active\n(No active projects yet.)\n\n## Completed\n(None yet.)\n"})
	target := h.recordPath("project", "installer")
	h.write(t, writeOp{Action: "create", Target: target, Category: "project", Doc: map[string]any{
		"title": "Installer", "tags": []any{"install"},
		"content": map[string]any{"status": "active", "updated": "2026-03-10", "notes": "first cut"},
	}})
	want := "# Projects\n\n## Active\n(No active projects yet.)\n\n### Installer\n<!-- id: installer -->\n- **Status:** active\n- **Updated:** 2026-03-10\n- **Notes:** first cut\n\n## Completed\n(None yet.)\n"
	if got := testutil.ReadFile(t, h.ref("projects.md")); got != want {
		t.Fatalf("after create:\n%s", got)
	}
	data := testutil.ReadFile(t, target)
	h.write(t, writeOp{Action: "update", Target: target, Hash: records.Hash([]byte(data)), Doc: map[string]any{
		"title": "Installer", "content": map[string]any{"status": "completed", "updated": "2026-03-14", "notes": "first cut"},
		"changes": append(mustRecordChanges(t, target), map[string]any{"date": "2026-03-15T10:30:00Z", "summary": "done"}),
	}})
	got := testutil.ReadFile(t, h.ref("projects.md"))
	if !strings.Contains(got, "- **Status:** completed\n- **Updated:** 2026-03-14\n") {
		t.Fatalf("after update:\n%s", got)
	}
	h.write(t, writeOp{Action: "archive", Target: target, Reason: "done"})
	if got := testutil.ReadFile(t, h.ref("projects.md")); strings.Contains(got, "Installer") {
		t.Fatalf("archived entry still in projects.md:\n%s", got)
	}
	arch := testutil.ReadFile(t, h.Layout.ArchiveDir()+"/projects-2026.md")
	if !strings.Contains(arch, "### Installer\n<!-- id: installer -->\n") {
		t.Fatalf("archive:\n%s", arch)
	}
	if rep := mustIngest(t, h); len(rep.Changes) != 0 || len(rep.Problems) != 0 {
		t.Fatalf("ingest after archive: %v %v", rep.Changes, rep.Problems)
	}
	h.write(t, writeOp{Action: "unarchive", Target: target})
	if got := testutil.ReadFile(t, h.ref("projects.md")); !strings.Contains(got, "### Installer") {
		t.Fatalf("unarchived entry not back:\n%s", got)
	}
	if arch := testutil.ReadFile(t, h.Layout.ArchiveDir()+"/projects-2026.md"); strings.Contains(arch, "Installer") {
		t.Fatalf("unarchived entry still archived:\n%s", arch)
	}
}

func mustRecordChanges(t *testing.T, path string) []any {
	d, err := decodeObject([]byte(testutil.ReadFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := d["changes"].([]any)
	return c
}

// TestIngestSaysWhatItWrote: the report lists exactly the memory files
// the ingest wrote (a hook commits them as the tool call's), and nothing
// when it wrote nothing.
func TestIngestSaysWhatItWrote(t *testing.T) {
	h := newHome(t, map[string]string{"reference/decisions.md": decisions})
	rep := mustIngest(t, h)
	want := []string{"records/decisions/drop-redis.json", "records/decisions/use-sqlite-for-c4.json",
		"records/index.md", "reference/decisions.md"}
	got := slices.Compact(slices.Sorted(slices.Values(rep.Written)))
	if !slices.Equal(got, want) {
		t.Fatalf("written = %v, want %v", rep.Written, want)
	}
	if rep = mustIngest(t, h); len(rep.Written) != 0 {
		t.Fatalf("an ingest that changed nothing wrote %v", rep.Written)
	}
}
