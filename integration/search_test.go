package integration

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// searchHome is recallHome with a week-old session log, today's log and a
// C4 conversation.
func searchHome(t *testing.T) string {
	zd := recallHome(t)
	testutil.WriteFile(t, filepath.Join(zd, "memory", "sessions", "2026-03-08.md"), "# Session Log: 2026-03-08\n\n"+
		"**10:15** - Discussed the kangaroo migration with Dana\n  the cutover is on a Sunday night\n\n"+
		"**11:40** - Decided to keep Postgres for billing\n")
	testutil.WriteFile(t, filepath.Join(zd, "memory", "sessions", "current.md"), "# Session Log: 2026-03-15\n\n**09:00** - Reviewed the backup rotation\n")
	c4fixture.Create(t, filepath.Join(zd, "comm-bridge", "c4.db"), 0, 0)
	db, err := sql.Open("sqlite3", filepath.Join(zd, "comm-bridge", "c4.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO conversations(timestamp, direction, channel, content) VALUES
		('2026-03-12 08:00:00', 'in', 'telegram', 'can you check the zebra invoices from the kangaroo farm?')`); err != nil {
		t.Fatal(err)
	}
	return zd
}

func TestSearchCommand(t *testing.T) {
	zd := searchHome(t)
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"every_tier", []string{"kangaroo"}, 0},
		{"stemmed_json", []string{"--json", "migrating", "kangaroos"}, 0},
		{"tier_c4", []string{"kangaroo", "--tier", "c4"}, 0},
		{"tiers_and_dates", []string{"--tier", "sessions", "--tier", "reference", "--since", "2026-03-09", "postgres", "backup"}, 0},
		{"fts_syntax", []string{`"kangaroo* NEAR(dana) -billing body:x`}, 0},
		{"retired", []string{"--include-retired", "rotate", "signing", "keys"}, 0},
		{"nothing", []string{"xylophone"}, 0},
		{"stop_words", []string{"what", "did", "we", "say"}, 1},
		{"bad_tier", []string{"--tier", "mail", "kangaroo"}, 1},
		{"bad_date", []string{"--since", "last week", "kangaroo"}, 1},
		{"no_query", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := testutil.Run{ZylosDir: zd, Dir: t.TempDir()}.Exec(t, append([]string{"search"}, tt.args...)...)
			if res.Code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", res.Code, tt.code, res.Stderr)
			}
			testutil.Golden(t, "testdata/search/"+tt.name+".golden", []byte(fmt.Sprintf("%s--- stderr\n%s", res.Stdout, res.Stderr)))
		})
	}
}

// TestSearchLongQueryAndBadC4: a 10 KB query answers; a c4.db that is not
// a database is a warning, and the files are still searched.
func TestSearchLongQueryAndBadC4(t *testing.T) {
	zd := searchHome(t)
	res := testutil.Run{ZylosDir: zd}.Exec(t, "search", strings.Repeat(`kangaroo "x* NEAR `, 600))
	if res.Code != 0 || !strings.Contains(res.Stdout, "2026-03-08.md:3") {
		t.Errorf("10 KB query: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	os.Remove(filepath.Join(zd, "memory", ".state", "search.db"))
	if err := os.WriteFile(filepath.Join(zd, "comm-bridge", "c4.db"), []byte(strings.Repeat("garbage ", 512)), 0o644); err != nil {
		t.Fatal(err)
	}
	res = testutil.Run{ZylosDir: zd}.Exec(t, "search", "kangaroo")
	if res.Code != 0 || !strings.Contains(res.Stdout, "2026-03-08.md:3") || strings.Contains(res.Stdout, "c4:") ||
		!strings.Contains(res.Stderr, "warning: c4") {
		t.Errorf("corrupt c4.db: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}

// TestReindex rebuilds a damaged index.
func TestReindex(t *testing.T) {
	zd := searchHome(t)
	db := filepath.Join(zd, "memory", ".state", "search.db")
	os.MkdirAll(filepath.Dir(db), 0o755)
	os.WriteFile(db, []byte("not a database"), 0o644)
	if res := (testutil.Run{ZylosDir: zd}).Exec(t, "reindex"); res.Code != 0 || !strings.HasPrefix(res.Stdout, "Search index rebuilt in ") {
		t.Fatalf("reindex: %+v", res)
	}
	if res := (testutil.Run{ZylosDir: zd}).Exec(t, "search", "zebra"); res.Code != 0 || !strings.HasPrefix(res.Stdout, "c4:1  2026-03-12  c4\n") {
		t.Errorf("after reindex: %+v", res)
	}
}
