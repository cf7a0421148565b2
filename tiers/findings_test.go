package tiers

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/entries"
)

var findingsToday = time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)

// daysAgo is the YYYY-MM-DD date n days before findingsToday.
func daysAgo(n int) string { return findingsToday.AddDate(0, 0, -n).Format(entries.DateLayout) }

func decision(date, status string) string {
	return fmt.Sprintf("### [%s] D %s\n- **Decision:** x\n- **Status:** %s\n\n", date, status, status)
}

func project(name, status, updated string) string {
	return fmt.Sprintf("### %s\n- **Status:** %s\n- **Updated:** %s\n\n", name, status, updated)
}

func TestFindingsBoundaries(t *testing.T) {
	tests := []struct {
		name, file, src string
		stale, done     int
	}{
		{"decision 90 days is kept", "decisions.md", decision(daysAgo(90), "superseded"), 0, 0},
		{"decision 91 days superseded", "decisions.md", decision(daysAgo(91), "superseded"), 1, 0},
		{"decision 91 days archived", "decisions.md", decision(daysAgo(91), "archived"), 1, 0},
		{"decision 400 days active", "decisions.md", decision(daysAgo(400), "active"), 0, 0},
		{"decision dated in the future", "decisions.md", decision(daysAgo(-5), "archived"), 0, 0},
		{"project 30 days is kept", "projects.md", project("P", "completed", daysAgo(30)), 0, 0},
		{"project 31 days completed", "projects.md", project("P", "completed", daysAgo(31)), 0, 1},
		{"project 31 days blocked", "projects.md", project("P", "blocked", daysAgo(31)), 0, 0},
		{"project completed by section", "projects.md", "## Completed\n### P\n- **Updated:** " + daysAgo(31) + "\n", 0, 1},
		{"malformed is reported, not moved", "projects.md", project("P", "completed", "2025-13-45"), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := FindEntries(entries.Parse(tt.file, []byte(tt.src)), findingsToday)
			if len(f.StaleDecisions) != tt.stale || len(f.CompletedProjects) != tt.done {
				t.Errorf("stale decisions %d, completed projects %d; want %d, %d", len(f.StaleDecisions), len(f.CompletedProjects), tt.stale, tt.done)
			}
		})
	}
}

func TestPreferenceConflicts(t *testing.T) {
	a := "### Reply tone\n- **Value:** terse\n- **Added:** 2026-01-01\n\n### Editor\n- **Value:** vim\n"
	b := "### reply  TONE\n- **Value:** Terse\n\n### Editor\n- **Value:** emacs\n\n### Editor\n- **Value:** nano\n- **Status:** superseded\n"
	es := append(entries.Parse("reference/preferences.md", []byte(a)), entries.Parse("reference/preferences-work.md", []byte(b))...)
	got := preferenceConflicts(es)
	if len(got) != 1 || got[0].Name != "Editor" || len(got[0].Values) != 2 {
		t.Fatalf("conflicts = %+v, want one for Editor with vim and emacs", got)
	}
	if got[0].Values[1].File != "reference/preferences-work.md" || got[0].Values[1].Line != 4 {
		t.Errorf("second value cited as %s:%d", got[0].Values[1].File, got[0].Values[1].Line)
	}
}

// writeTree writes files (path relative to the memory dir -> content).
func writeTree(t testing.TB, l Layout, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(l.MemoryDir(), rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sampleTree is a memory dir with one of everything consolidation acts on.
func sampleTree() map[string]string {
	return map[string]string{
		"core.md": "# Core Memory\n\n## Identity\nI am.\n",
		"reference/decisions.md": "# Decisions Log\n\n" + decision("2025-11-01", "superseded") +
			decision("2026-03-01", "active") + decision("2024-06-30", "archived") + "### [2026-13-45] Broken\n- **Decision:** x\n- **Status:** active\n",
		"reference/projects.md": "# Projects\n\n## Active\n" + project("Live", "active", "2026-03-10") +
			"## Completed\n" + project("Old", "completed", "2025-12-01") + project("Recent", "completed", "2026-03-01"),
		"reference/preferences.md": "# User Preferences\n\n### Editor\n- **Value:** vim\n\n### Editor\n- **Value:** emacs\n",
		"reference/.hidden.md":     "### [2020-01-01] hidden\n- **Status:** archived\n",
		"sessions/2026-01-01.md":   "# Session Log: 2026-01-01\n\n**09:00** - old day\n",
		"sessions/2026-03-14.md":   "# Session Log: 2026-03-14\n\n**25:00** - bad time\n",
		"sessions/current.md":      "# Session Log: 2026-03-15\n\n**10:00** - today\n",
	}
}

// sampleFindings are the findings over sampleTree on 2026-03-15.
func sampleFindings(t *testing.T) EntryFindings {
	t.Helper()
	t.Setenv("TZ", "UTC")
	l := Layout{ZylosDir: t.TempDir()}
	writeTree(t, l, sampleTree())
	f, err := l.EntryFindings(time.Date(2026, 3, 15, 10, 30, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestEntryFindingsGolden(t *testing.T) {
	f := sampleFindings(t)
	got, _ := json.MarshalIndent(f, "", "  ")
	testutil.Golden(t, "testdata/findings.golden", append(got, '\n'))
}

func TestEntryFindingsEmptyTree(t *testing.T) {
	t.Setenv("TZ", "UTC")
	f, err := Layout{ZylosDir: t.TempDir()}.EntryFindings(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(f)
	want := `{"staleDecisions":[],"completedProjects":[],"conflictingPreferences":[],"malformed":[]}`
	if string(got) != want {
		t.Errorf("empty tree: %s, want %s", got, want)
	}
}

// TestFindingsJSONMatchesStruct holds that the report field prints the same
// document as encoding/json does for the findings.
func TestFindingsJSONMatchesStruct(t *testing.T) {
	f := sampleFindings(t)
	want, _ := json.MarshalIndent(f, "", "  ")
	if got := AppendIndentedJSON(nil, f.JSON(), ""); string(got) != string(want) {
		t.Errorf("JSON() differs:\n%s", testutil.Diff(string(want), string(got)))
	}
}

// TestScanEntriesTooLarge: a runaway file is reported, not parsed.
func TestScanEntriesTooLarge(t *testing.T) {
	l := Layout{ZylosDir: t.TempDir()}
	big := strings.Repeat("## Section\ntext\n", entries.MaxFileSize/16+1)
	writeTree(t, l, map[string]string{"core.md": big, "reference/decisions.md": decision("2020-01-01", "archived")})
	es, err := l.ScanEntries()
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || !strings.Contains(es[0].Problem, "not parsed") || es[0].File != "core.md" {
		t.Fatalf("entries = %+v, want core.md reported as too large, then the decision", es)
	}
	var unparsed *entries.UnparsedError
	if _, err := ParseFile(filepath.Join(l.MemoryDir(), "core.md")); !errors.As(err, &unparsed) {
		t.Errorf("ParseFile error = %v, want *UnparsedError", err)
	}
}
