package fulltext_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/fulltext"
	"github.com/zylos/zylos-memory/tiers/recall"
)

// evalDepth is how many hits a question reads to find its first ten
// sessions.
const evalDepth = 60

// buildEvalHome writes the corpus as a home: sessions/<day>.md and c4.db.
func buildEvalHome(tb testing.TB, c evalCorpus) fulltext.Scope {
	tb.Helper()
	l := tiers.Layout{ZylosDir: filepath.Join(tb.TempDir(), "zylos")}
	if err := os.MkdirAll(l.SessionsDir(), 0o755); err != nil {
		tb.Fatal(err)
	}
	for day, text := range c.logs {
		if err := os.WriteFile(filepath.Join(l.SessionsDir(), day+".md"), []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := c4sync.Create(l.C4DB()); err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open("sqlite3", l.C4DB())
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range c.c4 {
		if _, err := tx.Exec(`INSERT INTO conversations(timestamp, direction, channel, content, status) VALUES(?, ?, 'telegram', ?, 'delivered')`,
			r.ts, r.direction, r.content); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return fulltext.ScopeOf(l, "", c4sync.OpenConversations)
}

// recallAt is, per k, the share of questions whose session is among the
// first k distinct sessions of its ranked days.
type recallAt map[int]float64

var evalKs = []int{1, 5, 10}

func measure(qs []evalQuestion, rank func(q string) []string) (all recallAt, byStyle map[string]recallAt) {
	all, byStyle = recallAt{}, map[string]recallAt{}
	count := map[string]int{}
	for _, q := range qs {
		days := distinct(rank(q.text))
		count[q.style]++
		if byStyle[q.style] == nil {
			byStyle[q.style] = recallAt{}
		}
		for _, k := range evalKs {
			if slices.Contains(days[:min(k, len(days))], q.day) {
				all[k]++
				byStyle[q.style][k]++
			}
		}
	}
	for _, k := range evalKs {
		all[k] /= float64(len(qs))
		for s := range byStyle {
			byStyle[s][k] /= float64(count[s])
		}
	}
	return all, byStyle
}

func distinct(days []string) []string {
	var out []string
	for _, d := range days {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func (r recallAt) String() string {
	return fmt.Sprintf("R@1 %5.1f%%  R@5 %5.1f%%  R@10 %5.1f%%", 100*r[1], 100*r[5], 100*r[10])
}

// TestRecallEvaluation measures session-level recall of search on the
// generated corpus, and of the keyword scorer search replaced (the claude-memory plugin's
// title/tag/prefix points, each document scored as a title) on the same
// documents. The figures are in docs/performance.md; run with -v to see them.
func TestRecallEvaluation(t *testing.T) {
	start := time.Now()
	c := generateEval()
	h := buildEvalHome(t, c)
	t.Logf("corpus: %v", time.Since(start))
	ix, err := fulltext.Open(context.Background(), h, fulltext.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	now := evalStart.AddDate(0, 0, evalDays)
	search := func(q string) []string {
		hits, err := ix.Search(context.Background(), fulltext.Query{Text: q, Limit: evalDepth, Now: now})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		days := make([]string, len(hits))
		for i, h := range hits {
			days[i] = h.Date
		}
		return days
	}
	start = time.Now()
	all, byStyle := measure(c.questions, search)
	t.Logf("full-text search: %v", time.Since(start))
	old, oldByStyle := measure(c.questions, keywordScorer(t, h))
	t.Logf("%d questions over %d sessions (%d session lines, %d C4 rows)", len(c.questions), evalDays,
		evalDays*(evalChatterLen+evalFactsPerDay), len(c.c4))
	t.Logf("full-text index:   %v", all)
	for _, s := range evalStyles {
		t.Logf("  %-11s      %v", s, byStyle[s])
	}
	t.Logf("keyword scorer:    %v", old)
	for _, s := range evalStyles {
		t.Logf("  %-11s      %v", s, oldByStyle[s])
	}
	if all[5] < 0.88 {
		t.Errorf("Recall@5 %.1f%%, want 88%% or more", 100*all[5])
	}
}

// keywordScorer ranks every indexed document by the points of the claude-memory plugin's
// scorer, which retrieval used before the index (recall.Score: 2 for a
// title word, 1 for a prefix of 4+ letters, each document taken as a
// title), best first, recent first among equals. The words of each
// document are taken once, as recall.Score takes them.
func keywordScorer(t *testing.T, h fulltext.Scope) func(q string) []string {
	db, err := sql.Open("sqlite3", h.DBPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT day, body FROM docs`)
	if err != nil {
		t.Fatal(err)
	}
	type doc struct {
		day   string
		words map[string]struct{}
	}
	var docs []doc
	for rows.Next() {
		var day, body string
		if err := rows.Scan(&day, &body); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc{day, recall.Tokenize(body)})
	}
	rows.Close()
	return func(q string) []string {
		type scored struct {
			day   string
			score int
		}
		var hits []scored
		tokens := recall.Tokenize(q)
		for _, d := range docs {
			score := 0
			for tok := range tokens {
				if _, ok := d.words[tok]; ok {
					score += 2
					continue
				}
				if len(tok) < 4 {
					continue
				}
				for w := range d.words {
					if strings.HasPrefix(w, tok) {
						score++
						break
					}
				}
			}
			if score > 0 {
				hits = append(hits, scored{d.day, score})
			}
		}
		sort.SliceStable(hits, func(i, j int) bool {
			if hits[i].score != hits[j].score {
				return hits[i].score > hits[j].score
			}
			return hits[i].day > hits[j].day
		})
		var days []string
		for _, h := range hits[:min(evalDepth, len(hits))] {
			days = append(days, h.day)
		}
		return days
	}
}
