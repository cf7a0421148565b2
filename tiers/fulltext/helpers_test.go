package fulltext

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers"
)

// The tests' C4 database is package sync's, its conversations read by
// sync's reader as the commands read them. sync implements this
// package's Conversations, so it imports it, and a test of this package
// cannot import sync: c4_test.go, in package fulltext_test, hands them
// over before any test runs.
var (
	testConversations OpenConversations
	createC4          func(path string) (bool, error)
)

// UseC4 sets the C4 reader and creator of the package's own tests.
func UseC4(open OpenConversations, create func(path string) (bool, error)) {
	testConversations, createC4 = open, create
}

// testNow is the clock of the tests.
var testNow = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// testHome is a home with a log of each kind, a reference file, a record,
// an archive and a c4.db with two rows.
func testHome(t testing.TB) Scope {
	t.Helper()
	zd := filepath.Join(t.TempDir(), "zylos")
	l := tiers.Layout{ZylosDir: zd}
	testutil.WriteFile(t, l.CurrentSession(), "# Session Log: 2026-11-23\n\n**09:00** - Started the backup rotation review\n")
	testutil.WriteFile(t, filepath.Join(l.SessionsDir(), "2026-11-16.md"), "# Session Log: 2026-11-16\n\n"+
		"**10:15** - Discussed the kangaroo migration plan with Dana\n"+
		"  the cutover is on a Sunday night\n\n"+
		"**11:40** - Decided to keep Postgres for billing\n")
	testutil.WriteFile(t, filepath.Join(l.ReferenceDir(), "decisions.md"), "# Decisions\n\n"+
		"### [2026-03-10] Postgres for the authentication store\n- **Decision:** Postgres\n- **Status:** active\n\n"+
		"### [2025-01-10] Mongo for sessions\n- **Decision:** Mongo\n- **Status:** superseded\n")
	testutil.WriteFile(t, filepath.Join(l.RecordsDir(), "decisions", "use-jwt.json"), `{"schema_version":"1.0","category":"decision",
"id":"use-jwt","title":"Use JWT for authentication","created_at":"2026-11-01T00:00:00Z","updated_at":"2026-11-01T00:00:00Z",
"tags":["auth","jwt"],"record_status":"active","content":{"decision":"Stateless tokens","context":"Sessions did not scale"},
"changes":[],"times_updated":0}`)
	testutil.WriteFile(t, filepath.Join(l.RecordsDir(), "runbooks", "old.json"), `{"schema_version":"1.0","category":"runbook",
"id":"old","title":"Rotate JWT signing keys","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z",
"tags":["jwt"],"record_status":"retired","content":{"trigger":"key leak"},"changes":[],"times_updated":0}`)
	testutil.WriteFile(t, filepath.Join(l.ArchiveDir(), "2025-10-01.md"), "# Session Log: 2025-10-01\n\n**08:00** - Archived talk about the llama farm\n")
	testutil.WriteFile(t, filepath.Join(l.ArchiveDir(), "decisions-2024.md"), "# Decisions\n\n### [2024-05-01] JWT library choice\n- **Decision:** golang-jwt\n- **Status:** active\n")
	c4Rows(t, l.C4DB(), "2026-11-20 08:00:00", "in", "can you check the zebra invoices", "2026-11-20 08:01:00", "out", "the zebra invoices are paid")
	time.Sleep(racyWindow) // so that an update finds nothing new
	return ScopeOf(l, "", testConversations)
}

func appendTo(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// c4Rows creates c4.db when missing and adds rows given as
// timestamp, direction, content triples.
func c4Rows(t testing.TB, path string, triples ...string) {
	t.Helper()
	if _, err := createC4(path); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := 0; i+2 < len(triples); i += 3 {
		if _, err := db.Exec(`INSERT INTO conversations(timestamp, direction, channel, content) VALUES(?, ?, 'telegram', ?)`,
			triples[i], triples[i+1], triples[i+2]); err != nil {
			t.Fatal(err)
		}
	}
}

func openTest(t testing.TB, h Scope) *Index {
	t.Helper()
	ix, err := Open(context.Background(), h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func search(t testing.TB, ix *Index, q Query) []Hit {
	t.Helper()
	if q.Now.IsZero() {
		q.Now = testNow
	}
	hits, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func cites(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Cite)
	}
	return out
}
