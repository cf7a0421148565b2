package fulltext

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

func TestSearchFindsEveryTier(t *testing.T) {
	ix := openTest(t, testHome(t))
	tests := []struct {
		query string
		want  string
	}{
		{"kangaroo migration", "memory/sessions/2026-11-16.md:3"},
		{"cutover sunday", "memory/sessions/2026-11-16.md:3"},
		{"backup rotation", "memory/sessions/current.md:3"},
		{"authentication store", "memory/reference/decisions.md:3"},
		{"stateless tokens", "memory/records/decisions/use-jwt.json"},
		{"llama farm", "memory/archive/2025-10-01.md:3"},
		{"golang-jwt library", "memory/archive/decisions-2024.md:3"},
		{"check zebra invoice", "c4:1"},
		{"migrating kangaroos", "memory/sessions/2026-11-16.md:3"}, // stemming
	}
	for _, tt := range tests {
		hits := search(t, ix, Query{Text: tt.query, Limit: 5})
		if len(hits) == 0 || hits[0].Cite != tt.want {
			t.Errorf("%q: got %v, want %s first", tt.query, cites(hits), tt.want)
		}
	}
}

func TestSearchFilters(t *testing.T) {
	ix := openTest(t, testHome(t))
	if got := cites(search(t, ix, Query{Text: "jwt"})); !slices.Equal(got, []string{
		"memory/records/decisions/use-jwt.json", "memory/archive/decisions-2024.md:3"}) {
		t.Errorf("default: %v", got)
	}
	if got := cites(search(t, ix, Query{Text: "jwt", IncludeRetired: true})); len(got) != 3 {
		t.Errorf("with retired: %v", got)
	}
	if got := cites(search(t, ix, Query{Text: "jwt", Tiers: []string{TierArchive}})); !slices.Equal(got, []string{"memory/archive/decisions-2024.md:3"}) {
		t.Errorf("archive tier: %v", got)
	}
	if got := cites(search(t, ix, Query{Text: "mongo"})); len(got) != 0 {
		t.Errorf("superseded decision shown: %v", got)
	}
	if got := cites(search(t, ix, Query{Text: "zebra kangaroo", Since: "2026-11-17"})); !slices.Equal(got, []string{"c4:1", "c4:2"}) &&
		!slices.Equal(got, []string{"c4:2", "c4:1"}) {
		t.Errorf("since: %v", got)
	}
	if got := cites(search(t, ix, Query{Text: "zebra kangaroo", Until: "2026-11-17"})); !slices.Equal(got, []string{"memory/sessions/2026-11-16.md:3"}) {
		t.Errorf("until: %v", got)
	}
}

func TestSearchQuerySyntaxIsText(t *testing.T) {
	ix := openTest(t, testHome(t))
	for _, q := range []string{`"kangaroo`, `kangaroo*`, `NEAR(kangaroo migration)`, `-kangaroo`, `body:kangaroo`,
		`kangaroo AND OR NOT`, `(kangaroo`, `kangaroo ^ ' { }`, strings.Repeat("kangaroo \"x* ", 1000)} {
		hits, err := ix.Search(context.Background(), Query{Text: q, Now: testNow})
		if err != nil || len(hits) == 0 {
			t.Errorf("%.40q: %v, %d hits", q, err, len(hits))
		}
	}
	for _, q := range []string{"the and of", "* - : \"", "a b c"} {
		if _, err := ix.Search(context.Background(), Query{Text: q}); !errors.Is(err, ErrNoTerms) {
			t.Errorf("%q: %v, want ErrNoTerms", q, err)
		}
	}
}

// logHome is a home of n session lines in logs of logLines lines, each
// line naming its number and the kafka consumer.
func logHome(t *testing.T, n int) Scope {
	t.Helper()
	h := testHome(t)
	day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i += logLines {
		d := day.AddDate(0, 0, i/logLines).Format(time.DateOnly)
		var b strings.Builder
		b.WriteString("# Session Log: " + d + "\n\n")
		for j := i; j < min(n, i+logLines); j++ {
			fmt.Fprintf(&b, "**09:00** - item%d of the kafka consumer\n", j)
		}
		testutil.WriteFile(t, filepath.Join(h.Layout.SessionsDir(), d+".md"), b.String())
	}
	return h
}

const logLines = 4

func TestSearchIgnoresWordsNotIndexed(t *testing.T) {
	// Past commonDocs documents, a word found nowhere once counted as the
	// rare word of the query, and left nothing to search for.
	ix := openTest(t, logHome(t, commonDocs+100))
	for _, q := range []string{"kafka xylophone", "kafka consumer xylophone"} {
		if hits := search(t, ix, Query{Text: q, Limit: 3}); len(hits) != 3 {
			t.Errorf("%q: %v, want 3 hits", q, cites(hits))
		}
	}
	if hits := search(t, ix, Query{Text: "xylophone marimba"}); len(hits) != 0 {
		t.Errorf("absent words found %v", cites(hits))
	}
}

func TestSearchWithoutLimitExcerptsEveryHit(t *testing.T) {
	ix := openTest(t, logHome(t, 1200))
	hits := search(t, ix, Query{Text: "kafka"})
	if len(hits) != 1200/logLines {
		t.Fatalf("%d hits", len(hits))
	}
	for _, h := range hits {
		if !strings.Contains(h.Excerpt, "kafka consumer") || len(h.Lines) != maxLinesPerLog-1 {
			t.Fatalf("%s: excerpt %q, %d more lines", h.Cite, h.Excerpt, len(h.Lines))
		}
		for _, l := range h.Lines {
			if !strings.Contains(l.Excerpt, "kafka consumer") || !strings.HasPrefix(l.Cite, h.Path+":") {
				t.Fatalf("%s: line %+v", h.Cite, l)
			}
		}
	}
}

// TestRecordBackedEntryFoundOnce: an entry naming its record by an id
// comment is one memory with its record, found once, as the record; the
// comment is no part of what an archived copy says.
func TestRecordBackedEntryFoundOnce(t *testing.T) {
	h := testHome(t)
	testutil.WriteFile(t, filepath.Join(h.Layout.ReferenceDir(), "decisions.md"), "# Decisions\n\n"+
		"### [2026-03-10] Postgres for the authentication store\n<!-- id: use-jwt -->\n- **Decision:** Postgres\n- **Status:** active\n")
	testutil.WriteFile(t, filepath.Join(h.Layout.ArchiveDir(), "decisions-2024.md"), "# Decisions\n\n"+
		"### [2024-05-01] JWT library choice\n<!-- id: jwt-library -->\n- **Decision:** golang-jwt\n- **Status:** active\n")
	ix := openTest(t, h)
	update(t, ix, true)
	if got := cites(search(t, ix, Query{Text: "authentication"})); !slices.Equal(got, []string{"memory/records/decisions/use-jwt.json"}) {
		t.Errorf("authentication: %v", got)
	}
	hits := search(t, ix, Query{Text: "golang library"})
	if len(hits) != 1 || hits[0].Cite != "memory/archive/decisions-2024.md:3" || strings.Contains(hits[0].Excerpt, "id:") {
		t.Errorf("archived entry: %+v", hits)
	}
}

// TestSearchGroupsLinesOfOneLog: five hits are five places when five
// places match, each log with its best lines.
func TestSearchGroupsLinesOfOneLog(t *testing.T) {
	h := testHome(t)
	var b strings.Builder
	b.WriteString("# Session Log: 2026-11-21\n\n")
	for i := range 20 {
		fmt.Fprintf(&b, "**09:%02d** - the walrus feed, walrus check %d\n", i, i)
	}
	testutil.WriteFile(t, filepath.Join(h.Layout.SessionsDir(), "2026-11-21.md"), b.String())
	for i := range 4 {
		d := fmt.Sprintf("2026-10-%02d", i+1)
		testutil.WriteFile(t, filepath.Join(h.Layout.SessionsDir(), d+".md"), "# Session Log: "+d+"\n\n**10:00** - one walrus note\n")
	}
	time.Sleep(racyWindow)
	ix := openTest(t, h)
	hits := search(t, ix, Query{Text: "walrus", Limit: 5})
	paths := map[string]bool{}
	for _, h := range hits {
		paths[h.Path] = true
	}
	if len(hits) != 5 || len(paths) != 5 || hits[0].Path != "memory/sessions/2026-11-21.md" || len(hits[0].Lines) != maxLinesPerLog-1 {
		t.Errorf("hits %v, first %+v", cites(hits), hits[0])
	}
}
