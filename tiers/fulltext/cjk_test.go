package fulltext

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// cjkHome is testHome with a log of Chinese, Japanese and Korean lines,
// each word of interest inside a longer run, and lines that hold only
// part of a word, which must rank below the whole word.
func cjkHome(t *testing.T) Scope {
	h := testHome(t)
	testutil.WriteFile(t, filepath.Join(h.Layout.SessionsDir(), "2026-11-10.md"), "# Session Log: 2026-11-10\n\n"+
		"**09:00** - 我们决定使用数据库迁移方案\n\n"+ // 3
		"**09:10** - 数据都在表格里\n\n"+ // 5: 数据 without 库
		"**09:20** - 東京のサーバーを再起動した\n\n"+ // 7
		"**09:30** - 회의록을 정리했습니다\n\n"+ // 9
		"**09:40** - 회의는 내일입니다\n\n"+ // 11: 회의 without 록
		"**09:50** - 猫が好き\n") // 13
	time.Sleep(racyWindow)
	return h
}

func TestSearchFindsCJKWordsInsideRuns(t *testing.T) {
	ix := openTest(t, cjkHome(t))
	tests := []struct {
		query string
		want  []string // best first; nil: nothing
	}{
		{"数据库", []string{"memory/sessions/2026-11-10.md:3", "memory/sessions/2026-11-10.md:5"}},
		{"迁移方案", []string{"memory/sessions/2026-11-10.md:3"}},
		{"東京", []string{"memory/sessions/2026-11-10.md:7"}},
		{"サーバー", []string{"memory/sessions/2026-11-10.md:7"}},
		{"회의록", []string{"memory/sessions/2026-11-10.md:9", "memory/sessions/2026-11-10.md:11"}},
		{"猫", []string{"memory/sessions/2026-11-10.md:13"}},
		{"kangaroo 数据库", nil}, // mixed: checked below
		{"火星", nil},
	}
	for _, tt := range tests {
		hits := search(t, ix, Query{Text: tt.query, Limit: 5})
		if tt.query == "kangaroo 数据库" {
			got := cites(hits)
			if !slices.Contains(got, "memory/sessions/2026-11-10.md:3") || !slices.Contains(got, "memory/sessions/2026-11-16.md:3") {
				t.Errorf("%q: %v", tt.query, got)
			}
			continue
		}
		if got := lineCites(hits); !slices.Equal(got, tt.want) {
			t.Errorf("%q: got %v, want %v", tt.query, got, tt.want)
		}
	}
	// the excerpt of a CJK hit is its line
	if hits := search(t, ix, Query{Text: "数据库", Limit: 1}); len(hits) != 1 || !strings.Contains(hits[0].Excerpt, "数据库迁移") {
		t.Errorf("excerpt: %+v", hits)
	}
}

// Latin words keep their stemming and diacritics folding beside the CJK
// column.
func TestSearchLatinUnchangedBesideCJK(t *testing.T) {
	h := cjkHome(t)
	testutil.WriteFile(t, filepath.Join(h.Layout.SessionsDir(), "2026-11-11.md"), "# Session Log: 2026-11-11\n\n**08:00** - Met the café owner in Zürich\n")
	time.Sleep(racyWindow)
	ix := openTest(t, h)
	for _, q := range []string{"cafe zurich", "CAFÉ", "migrating kangaroos"} {
		if hits := search(t, ix, Query{Text: q, Limit: 1}); len(hits) != 1 {
			t.Errorf("%q: %v", q, cites(hits))
		}
	}
}

func TestTermsOfBadInput(t *testing.T) {
	long := strings.Repeat("数据库迁移", 2<<20) // 10 MB without a space
	start := time.Now()
	ts := terms(long)
	if len(ts) == 0 || len(ts) > maxTerms || time.Since(start) > 2*time.Second {
		t.Errorf("10 MB run: %d terms in %v", len(ts), time.Since(start))
	}
	for _, q := range []string{"😀🎉", "שלום עולם", "مرحبا بالعالم", "数", "a数b", "\u200f\u202e"} {
		terms(q) // must not panic; emoji and marks give no term
	}
	if got := terms("😀🎉 \u200f"); len(got) != 0 {
		t.Errorf("emoji: %q", got)
	}
	if got := terms("Postgres数据库"); !slices.Equal(got, []string{"postgres", "数据库", "数据", "据库"}) {
		t.Errorf("mixed word: %q", got)
	}
}

// lineCites are the cites of hits and of their further lines, in order.
func lineCites(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Cite)
		for _, l := range h.Lines {
			out = append(out, l.Cite)
		}
	}
	return out
}

// FuzzTerms: any query gives at most maxTerms terms, each valid UTF-8,
// never empty, CJK terms made of CJK letters only, and a match expression
// of them that FTS5 accepts.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"数据库 kafka", "東京のサーバー", "회의록을", "a数b", "😀 \u202e", `"x* NEAR(`, "Postgres数据库迁移方案东京"} {
		f.Add(s)
	}
	db := fuzzIndex(f)
	f.Fuzz(func(t *testing.T, q string) {
		ts := terms(q)
		if len(ts) > maxTerms {
			t.Fatalf("%d terms", len(ts))
		}
		for _, term := range ts {
			if term == "" || !utf8.ValidString(term) {
				t.Fatalf("term %q", term)
			}
			if isCJKTerm(term) && strings.IndexFunc(term, func(r rune) bool { return !isCJK(r) }) >= 0 {
				t.Fatalf("mixed term %q", term)
			}
		}
		if len(ts) > 0 {
			if _, err := db.Exec(`SELECT rowid FROM fts WHERE fts MATCH ?`, matchExpr(ts)); err != nil {
				t.Fatalf("%q: %v", matchExpr(ts), err)
			}
		}
	})
}

// fuzzIndex is the index of a test home, for checking match expressions.
func fuzzIndex(f *testing.F) *sql.DB {
	h := testHome(f)
	ix, err := Open(context.Background(), h, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ix.Close() })
	return ix.db
}
