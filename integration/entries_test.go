package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// entriesTree is a memory dir (paths relative to memory/) holding one of
// everything `consolidate --entries` reports and `--apply` moves, dated
// against the harness clock 2026-03-15T10:30:00Z.
var entriesTree = map[string]string{
	"core.md": "# Core Memory\n\n## Identity\nI am a Zylos agent.\n",
	"reference/decisions.md": "# Decisions Log\n\n" +
		"### [2025-11-01] Use SQLite for C4\n- **Decision:** SQLite\n- **Context:** one file\n- **Status:** superseded\n\n" +
		"### [2025-12-15] Ninety days ago\n- **Decision:** kept\n- **Context:** boundary\n- **Status:** archived\n\n" +
		"### [2026-03-01] Go binary\n- **Decision:** Go\n- **Context:** speed\n- **Status:** active\n\n" +
		"### [2026-13-45] Impossible date\n- **Decision:** x\n- **Status:** active\n",
	"reference/projects.md": "# Projects\n\n## Active\n### Memory v2\n- **Status:** active\n- **Updated:** 2026-03-10\n- **Notes:** going\n\n" +
		"## Completed\n### Installer\n- **Status:** completed\n- **Updated:** 2026-02-12\n- **Notes:** shipped\n\n" +
		"### Dashboard\n- **Updated:** 2026-02-13\n- **Notes:** thirty days, kept\n",
	"reference/preferences.md": "# User Preferences\n\n### Reply language\n- **Value:** English\n- **Source:** stated\n- **Added:** 2026-01-02\n\n" +
		"### Reply language\n- **Value:** Chinese\n- **Source:** observed\n- **Added:** 2026-02-02\n",
	"sessions/2026-02-01.md": "# Session Log: 2026-02-01\n\n**09:00** - old day\n",
	"sessions/2026-03-14.md": "# Session Log: 2026-03-14\n\n**9:75** - bad minute\n",
	"sessions/current.md":    "# Session Log: 2026-03-15\n\n**10:00** - today\n",
}

var entriesMtime = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// entriesHome writes entriesTree under a fresh zylos home with fixed
// mtimes (the Node report prints them).
func entriesHome(t testing.TB) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "zylos")
	for rel, content := range entriesTree {
		p := filepath.Join(home, "memory", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, entriesMtime, entriesMtime); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// memoryFiles is every file under home/memory as "== path\ncontent".
func memoryFiles(t testing.TB, home string) string {
	return testutil.Tree(t, filepath.Join(home, "memory"))
}

func resultText(res testutil.Result) string {
	return fmt.Sprintf("exit %d\n-- stdout\n%s-- stderr\n%s", res.Code, res.Stdout, res.Stderr)
}

func TestConsolidateEntriesGolden(t *testing.T) {
	home := entriesHome(t)
	run := testutil.Run{ZylosDir: home}
	res := run.Exec(t, "consolidate", "--entries")
	testutil.Golden(t, "testdata/entries/report.golden", []byte(resultText(res)))

	plain := run.Exec(t, "consolidate")
	if plain.Code != 0 || strings.Contains(plain.Stdout, `"entries"`) {
		t.Errorf("plain consolidate changed: %s", resultText(plain))
	}
	if !strings.HasPrefix(res.Stdout, strings.TrimSuffix(plain.Stdout, "\n}\n")) {
		t.Error("--entries does not extend the Node report")
	}
}

func TestConsolidateApplyGolden(t *testing.T) {
	home := entriesHome(t)
	run := testutil.Run{ZylosDir: home}
	first := run.Exec(t, "consolidate", "--apply")
	tree := memoryFiles(t, home)
	testutil.Golden(t, "testdata/entries/apply.golden", []byte(resultText(first)+"\n"+tree))

	second := run.Exec(t, "consolidate", "--apply")
	if second.Code != 0 || second.Stdout != "Nothing to archive.\n" {
		t.Errorf("second apply: %s", resultText(second))
	}
	if memoryFiles(t, home) != tree {
		t.Error("second apply changed files")
	}
	report := run.Exec(t, "consolidate", "--entries")
	for _, gone := range []string{"Use SQLite for C4", "Installer", "2026-02-01.md"} {
		if strings.Contains(report.Stdout, gone) {
			t.Errorf("after apply the report still names %q", gone)
		}
	}
}

// TestConsolidateApplyConcurrent runs several appliers at once: the lock
// lets one do the work, the others find nothing, and nothing is archived
// twice.
func TestConsolidateApplyConcurrent(t *testing.T) {
	home := entriesHome(t)
	var wg sync.WaitGroup
	results := make([]testutil.Result, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = testutil.Run{ZylosDir: home}.Exec(t, "consolidate", "--apply")
		}()
	}
	wg.Wait()
	worked := 0
	for _, res := range results {
		if res.Code != 0 {
			t.Errorf("concurrent apply failed: %s", resultText(res))
		}
		if res.Stdout != "Nothing to archive.\n" {
			worked++
		}
	}
	if worked != 1 {
		t.Errorf("%d runs archived something, want exactly 1", worked)
	}
	tree := memoryFiles(t, home)
	if n := strings.Count(tree, "### [2025-11-01] Use SQLite for C4"); n != 2 { // archive + one backup
		t.Errorf("decision appears %d times (archive + backup expected):\n%s", n, tree)
	}
}

func TestConsolidateFlagErrors(t *testing.T) {
	home := entriesHome(t)
	tests := []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"apply with entries", []string{"consolidate", "--apply", "--entries"}, nil, "cannot be combined"},
		{"bad timezone", []string{"consolidate", "--entries"}, []string{"TZ=Not/AZone"}, "timezone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := testutil.Run{ZylosDir: home, Env: tt.env}.Exec(t, tt.args...)
			if res.Code != 1 || !strings.Contains(res.Stderr, tt.want) || strings.Count(res.Stderr, "\n") != 1 {
				t.Errorf("got %s; want exit 1 and one line with %q", resultText(res), tt.want)
			}
		})
	}
}
