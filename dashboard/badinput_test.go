package dashboard

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/fulltext"
)

// TestDamagedPartsAreNamedAndTheRestRenders breaks one source at a time:
// the page that reads it says what is wrong, every other section still
// renders, no page fails, and nothing on disk changes.
func TestDamagedPartsAreNamedAndTheRestRenders(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		page   string
		says   string
		still  []string
	}{
		{"missing index", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "memory/.state/search.db")) },
			"/", "search index is missing or must be rebuilt", []string{"memory-sync-periodic", `id="backlog"`, "edit decisions.md"}},
		{"corrupt index", func(t *testing.T, dir string) {
			testutil.WriteFile(t, filepath.Join(dir, "memory/.state/search.db"), strings.Repeat("not a database ", 500))
		}, "/search?q=kafka", "search index is missing or must be rebuilt", nil},
		{"corrupt index on the calendar", func(t *testing.T, dir string) {
			testutil.WriteFile(t, filepath.Join(dir, "memory/.state/search.db"), strings.Repeat("not a database ", 500))
		}, "/sessions?year=2026", "shading by size", []string{`href="day?date=2026-03-14"`}},
		{"missing c4.db", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "comm-bridge/c4.db")) },
			"/", "c4 database not found", []string{"memory-sync-periodic", "DECISION", "edit decisions.md"}},
		{"corrupt c4.db", func(t *testing.T, dir string) {
			testutil.WriteFile(t, filepath.Join(dir, "comm-bridge/c4.db"), strings.Repeat("garbage!", 1000))
		}, "/", "c4 db", []string{"memory-sync-periodic", "DECISION", "edit decisions.md"}},
		{"corrupt c4.db on charts", func(t *testing.T, dir string) {
			testutil.WriteFile(t, filepath.Join(dir, "comm-bridge/c4.db"), strings.Repeat("garbage!", 1000))
		}, "/charts", "c4 db", []string{"memory size per tier"}},
		{"corrupt journal", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "memory/.git/objects"))
			testutil.WriteFile(t, filepath.Join(dir, "memory/.git/HEAD"), "garbage\n")
		}, "/", "memory/.git is not a repository git can read", []string{"memory-sync-periodic", "DECISION", `id="backlog"`}},
		{"corrupt journal timeline", func(t *testing.T, dir string) {
			testutil.WriteFile(t, filepath.Join(dir, "memory/.git/HEAD"), "garbage\n")
		}, "/timeline", "memory/.git is not a repository git can read", nil},
		{"no journal", func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "memory/.git")) },
			"/core", "has no history yet", []string{"<strong>kafka</strong>"}},
		{"corrupt scheduler db", func(t *testing.T, dir string) {
			testutil.WriteFile(t, filepath.Join(dir, "memory/.state/scheduler.db"), strings.Repeat("garbage!", 1000))
		}, "/", "scheduler", []string{"DECISION", `id="backlog"`}},
		{"non-UTF-8 core.md", func(t *testing.T, dir string) {
			testutil.WriteFile(t, filepath.Join(dir, "memory/core.md"), "# Core \xff\xfe\n\nbad \xc3\x28 bytes\n")
		}, "/core", "bad \uFFFD( bytes", nil},
		{"non-UTF-8 log", func(t *testing.T, dir string) {
			testutil.WriteFile(t, filepath.Join(dir, "memory/sessions/2026-03-14.md"), "# Session Log: 2026-03-14\n\n**09:00** - caf\xe9\n")
		}, "/day?date=2026-03-14", "caf\uFFFD", nil},
		{"non-UTF-8 reference", func(t *testing.T, dir string) {
			testutil.WriteFile(t, filepath.Join(dir, "memory/reference/decisions.md"), "# D\n\n### [2026-03-01] caf\xe9 choice\n- **Status:** active\n")
		}, "/reference?file=memory/reference/decisions.md", "choice", nil},
		{"a FIFO for core.md", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "memory/core.md")
			os.Remove(p)
			if err := mkfifo(p); err != nil {
				t.Skip(err)
			}
		}, "/core", "not a regular file", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := testHome(t, true)
			srv := serve(t, l, nil)
			srv.get(t, "/core")
			c.damage(t, l.ZylosDir)
			before := snapshot(t, l.ZylosDir)
			a := srv.get(t, c.page)
			if a.code != http.StatusOK {
				t.Fatalf("%s: %d\n%s", c.page, a.code, clip(a.body, 3000))
			}
			mustContain(t, a, append([]string{c.says}, c.still...)...)
			for _, p := range pages {
				if b := srv.get(t, p); b.code >= 500 {
					t.Errorf("%s: %d %s", p, b.code, clip(b.body, 500))
				}
			}
			sameTree(t, l.ZylosDir, before)
		})
	}
}

func TestReadersNeverBuildTheIndex(t *testing.T) {
	l := testHome(t, false)
	db := fulltext.ScopeOf(l, "", nil).DBPath()
	os.Remove(db)
	srv := serve(t, l, nil)
	for _, p := range pages {
		srv.get(t, p)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a page built the search index")
	}
}

// TestCoreIsNotReadThroughASymlinkOut: a core.md linked to a file outside
// memory/ is refused on /core, as every other reader of it refuses it.
func TestCoreIsNotReadThroughASymlinkOut(t *testing.T) {
	l := testHome(t, false)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	testutil.WriteFile(t, secret, "root:x:0:0:the secret outside the home\n")
	if err := os.Remove(l.CoreFile()); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, l.CoreFile()); err != nil {
		t.Fatal(err)
	}
	a := serve(t, l, nil).get(t, "/core")
	if strings.Contains(a.body, "the secret outside the home") {
		t.Fatalf("/core shows a file outside the home:\n%s", clip(a.body, 4000))
	}
	mustContain(t, a, "leads outside memory/")
}
