package tiers

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/entries"
)

var applyNow = time.Date(2026, 3, 15, 10, 30, 0, 0, time.UTC)

// readTree is the whole memory dir as text.
func readTree(t *testing.T, l Layout) string { return testutil.Tree(t, l.MemoryDir()) }

func applyOnce(t *testing.T, l Layout) string {
	t.Helper()
	r, err := ApplyConsolidation(l, applyNow)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	var out bytes.Buffer
	r.WriteText(&out)
	return out.String()
}

func TestApplyConsolidation(t *testing.T) {
	t.Setenv("TZ", "UTC")
	l := Layout{ZylosDir: t.TempDir()}
	writeTree(t, l, sampleTree())
	before := readTree(t, l)

	out := applyOnce(t, l)
	after := readTree(t, l)
	testutil.Golden(t, "testdata/apply.golden", []byte(out+"\n"+after))

	if again := applyOnce(t, l); again != "Nothing to archive.\n" {
		t.Errorf("second run printed %q, want nothing to do", again)
	}
	if readTree(t, l) != after {
		t.Error("second run changed the tree")
	}
	assertNothingLost(t, before, after)
}

// assertNothingLost checks that every non-blank line of the tree before is
// still somewhere in the tree after (archive and backups included).
func assertNothingLost(t *testing.T, before, after string) {
	t.Helper()
	for _, line := range strings.Split(before, "\n") {
		if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "== ") && !strings.Contains(after, line) {
			t.Errorf("line lost: %q", line)
		}
	}
}

// TestApplyAfterCrash starts from what a crash between appending to the
// archive and rewriting the source leaves: the entry in both places, and a
// session log hard-linked into archive/ but not yet removed.
func TestApplyAfterCrash(t *testing.T) {
	t.Setenv("TZ", "UTC")
	l := Layout{ZylosDir: t.TempDir()}
	stale := decision("2025-11-01", "superseded")
	writeTree(t, l, map[string]string{
		"reference/decisions.md":    "# Decisions Log\n\n" + stale + decision("2026-03-01", "active"),
		"archive/decisions-2025.md": ArchiveHeader("archive/decisions-2025.md") + strings.TrimRight(stale, "\n") + "\n",
		"sessions/2026-01-01.md":    "# Session Log: 2026-01-01\n",
	})
	if err := os.Link(filepath.Join(l.SessionsDir(), "2026-01-01.md"), filepath.Join(l.ArchiveDir(), "2026-01-01.md")); err != nil {
		t.Fatal(err)
	}
	applyOnce(t, l)
	archive, _ := os.ReadFile(filepath.Join(l.ArchiveDir(), "decisions-2025.md"))
	if n := strings.Count(string(archive), "D superseded"); n != 1 {
		t.Errorf("archive holds the decision %d times, want once:\n%s", n, archive)
	}
	if src, _ := os.ReadFile(filepath.Join(l.ReferenceDir(), "decisions.md")); strings.Contains(string(src), "D superseded") {
		t.Errorf("decision not removed from its source:\n%s", src)
	}
	if _, err := os.Stat(filepath.Join(l.ArchiveDir(), "2026-01-01-1.md")); err == nil {
		t.Error("half-moved session archived twice")
	}
	if _, err := os.Stat(filepath.Join(l.SessionsDir(), "2026-01-01.md")); err == nil {
		t.Error("half-moved session left in sessions/")
	}
}

// TestApplyAfterCrashRecognisesID: after the same crash, the source copy
// of an archived entry may read differently from its archived copy (an
// ingest gave it its id comment, a hand edited it). The archived copy is
// recognised by the id, or by the text where only one copy has an id, and
// replaced by the entry as it reads now, the old bytes kept in a backup;
// an entry with another id is a different entry and is appended, and so
// is one without an id that reads unlike any archived entry.
func TestApplyAfterCrashRecognisesID(t *testing.T) {
	t.Setenv("TZ", "UTC")
	l := Layout{ZylosDir: t.TempDir()}
	entry := func(title, id, decision string) string {
		s := "### [2025-11-01] " + title + "\n"
		if id != "" {
			s += entries.IDComment(id) + "\n"
		}
		return s + "- **Decision:** " + decision + "\n- **Status:** archived\n\n"
	}
	archived := entry("Got its id", "", "x") + entry("Edited", "edited", "old") + entry("Other", "other-1", "x") +
		"### [2025-10-01] Kept\n- **Decision:** k\n- **Status:** archived\n"
	writeTree(t, l, map[string]string{
		"reference/decisions.md": "# Decisions Log\n\n" + entry("Got its id", "got-its-id", "x") +
			entry("Edited", "edited", "new") + entry("Other", "other-2", "x") + entry("Without an id", "", "y"),
		"archive/decisions-2025.md": ArchiveHeader("archive/decisions-2025.md") + archived,
	})
	applyOnce(t, l)
	got, _ := os.ReadFile(filepath.Join(l.ArchiveDir(), "decisions-2025.md"))
	want := ArchiveHeader("archive/decisions-2025.md") + entry("Got its id", "got-its-id", "x") + entry("Edited", "edited", "new") +
		entry("Other", "other-1", "x") + "### [2025-10-01] Kept\n- **Decision:** k\n- **Status:** archived\n\n" +
		entry("Other", "other-2", "x") + strings.TrimRight(entry("Without an id", "", "y"), "\n") + "\n"
	if string(got) != want {
		t.Errorf("archive:\n%s\nwant:\n%s", got, want)
	}
	if src, _ := os.ReadFile(filepath.Join(l.ReferenceDir(), "decisions.md")); string(src) != "# Decisions Log\n\n" {
		t.Errorf("source after apply: %q", src)
	}
	backups, _ := filepath.Glob(filepath.Join(l.StateDir(), "backups", "memory", "archive", "decisions-2025.md.*"))
	var kept string
	for _, b := range backups {
		data, _ := os.ReadFile(b)
		kept += string(data)
	}
	if !strings.Contains(kept, "- **Decision:** old\n") {
		t.Errorf("the replaced archived copy is in no backup (%v)", backups)
	}
	if again := applyOnce(t, l); again != "Nothing to archive.\n" {
		t.Errorf("second run: %q", again)
	}
}

func TestApplySessionCollision(t *testing.T) {
	t.Setenv("TZ", "UTC")
	l := Layout{ZylosDir: t.TempDir()}
	writeTree(t, l, map[string]string{
		"sessions/2026-01-01.md": "new\n",
		"archive/2026-01-01.md":  "already archived\n",
	})
	if out := applyOnce(t, l); out != "archived session sessions/2026-01-01.md -> archive/2026-01-01-1.md\n" {
		t.Errorf("output %q", out)
	}
	for name, want := range map[string]string{"2026-01-01.md": "already archived\n", "2026-01-01-1.md": "new\n"} {
		if got, _ := os.ReadFile(filepath.Join(l.ArchiveDir(), name)); string(got) != want {
			t.Errorf("archive/%s = %q, want %q", name, got, want)
		}
	}
}

// TestApplyRefuses: an archive file ending inside a code block would
// swallow an appended entry, so apply must change nothing at all.
func TestApplyRefuses(t *testing.T) {
	t.Setenv("TZ", "UTC")
	l := Layout{ZylosDir: t.TempDir()}
	files := map[string]string{
		"reference/decisions.md":    "# Decisions Log\n\n" + decision("2025-11-01", "archived"),
		"archive/decisions-2025.md": "# Decisions Archive 2025\n\n```\nunclosed\n",
	}
	writeTree(t, l, files)
	before := readTree(t, l)
	_, err := ApplyConsolidation(l, applyNow)
	if err == nil || !strings.Contains(err.Error(), "would not read back whole") {
		t.Fatalf("apply error = %v, want a refusal", err)
	}
	if readTree(t, l) != before {
		t.Error("a refused apply changed files")
	}
}

func TestCutEntriesRefusesForeignBytes(t *testing.T) {
	src := []byte("### [2025-01-01] A\n- **Decision:** a\n- **Status:** archived\n")
	es := entries.Parse("decisions.md", src)
	bad := es[0]
	bad.Text = "### [2025-01-01] A" // the range holds more than the text says
	if _, err := cutEntries("decisions.md", src, es, []entries.Entry{bad}); err == nil {
		t.Error("cut accepted a range with bytes outside the entry text")
	}
	if rest, err := cutEntries("decisions.md", src, es, es); err != nil || len(rest) != 0 {
		t.Errorf("cut of the only entry: %q, %v", rest, err)
	}
}

// TestApplyCRLF: entries of a CRLF file move byte for byte and the rest of
// the file keeps its line endings.
func TestApplyCRLF(t *testing.T) {
	t.Setenv("TZ", "UTC")
	l := Layout{ZylosDir: t.TempDir()}
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	keep := crlf(decision("2026-03-01", "active"))
	writeTree(t, l, map[string]string{"reference/decisions.md": crlf("# Decisions Log\n\n"+decision("2025-01-01", "archived")) + keep})
	if out := applyOnce(t, l); !strings.Contains(out, "archive/decisions-2025.md") {
		t.Fatalf("output %q", out)
	}
	src, _ := os.ReadFile(filepath.Join(l.ReferenceDir(), "decisions.md"))
	if string(src) != crlf("# Decisions Log\n\n")+keep {
		t.Errorf("source after apply: %q", src)
	}
	archive, _ := os.ReadFile(filepath.Join(l.ArchiveDir(), "decisions-2025.md"))
	if !strings.Contains(string(archive), crlf("- **Decision:** x\n- **Status:** archived")) {
		t.Errorf("archive: %q", archive)
	}
	if again := applyOnce(t, l); again != "Nothing to archive.\n" {
		t.Errorf("second run: %q", again)
	}
}
