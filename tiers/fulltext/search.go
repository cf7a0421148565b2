package fulltext

import (
	"context"
	"database/sql/driver"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Query is one search.
type Query struct {
	Text  string
	Tiers []string // empty: every tier
	// Since and Until (YYYY-MM-DD, inclusive) keep documents dated in the
	// range; undated documents are left out when either is set.
	Since, Until string
	// IncludeRetired adds retired records and superseded decisions;
	// IncludeArchived adds archived records.
	IncludeRetired, IncludeArchived bool
	Limit                           int
	// Now dates the recency tie-break.
	Now time.Time
}

// Hit is one document found, with where it is cited from.
type Hit struct {
	Tier     string   `json:"tier"`
	Cite     string   `json:"cite"` // memory/sessions/2026-11-16.md:42, memory/records/decisions/x.json, c4:12345
	Path     string   `json:"path,omitempty"`
	Line     int      `json:"line,omitempty"`
	Date     string   `json:"date,omitempty"`
	Category string   `json:"category,omitempty"`
	Status   string   `json:"status,omitempty"`
	Title    string   `json:"title,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// Origin is the home of the team a record came from; "" for this
	// home's own.
	Origin  string  `json:"origin,omitempty"`
	Excerpt string  `json:"excerpt"`
	Score   float64 `json:"score"`
	// Lines are the next best lines of the same log (see groupLogs).
	Lines []Line `json:"lines,omitempty"`
	// Text is the document's whole text, for callers that show more than
	// the excerpt.
	Text string `json:"-"`
	// id is the document's: only the hits kept have their text read, for
	// the excerpt.
	id int64
}

// Line is one more line (or group of lines) of a log hit.
type Line struct {
	Line    int    `json:"line"`
	Cite    string `json:"cite"`
	Excerpt string `json:"excerpt"`
	Text    string `json:"-"`
	id      int64
}

// maxLinesPerLog is how many lines of one log a hit shows: its best and
// the next best ones.
const maxLinesPerLog = 3

// isLogLine reports a document cut from a log (a session log, a dated
// archive log, a reference file of no entries): those of one file are
// one place, shown as one hit.
func (h Hit) isLogLine() bool {
	return h.Tier != TierRecords && h.Tier != TierC4 && h.Category == ""
}

// groupLogs folds the hits of each log into its best one, best first,
// keeping up to maxLinesPerLog lines: the top hits are then different
// places when different places match.
func groupLogs(hits []Hit) []Hit {
	out := hits[:0:0]
	at := map[string]int{}
	for _, h := range hits {
		if !h.isLogLine() {
			out = append(out, h)
			continue
		}
		i, seen := at[h.Path]
		if !seen {
			at[h.Path] = len(out)
			out = append(out, h)
			continue
		}
		if len(out[i].Lines) < maxLinesPerLog-1 {
			out[i].Lines = append(out[i].Lines, Line{Line: h.Line, Cite: h.Cite, id: h.id})
		}
	}
	return out
}

// Field weights of BM25: a word in a title or a tag says more about what a
// memory is about than the same word in its body.
// A pair of CJK letters weighs as a body word.
const (
	titleWeight = 4.0
	tagsWeight  = 3.0
	bodyWeight  = 1.0
	cjkWeight   = 1.0
)

// Recency is a tie-breaker: a document of today gains recencyBoost of its
// relevance, one recencyHalfLife days old half of that.
const (
	recencyBoost    = 0.05
	recencyHalfLife = 30.0
)

// candidatesPerHit is how many more documents than shown are ranked by
// BM25 before the recency tie-break reorders them.
const candidatesPerHit = 3

// Search ranks the documents that match q, best first.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	ts := terms(q.Text)
	if len(ts) == 0 {
		return nil, ErrNoTerms
	}
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	defer conn.Close()
	// One read transaction: the texts excerpted are those of the documents
	// ranked, whatever another process updates in between.
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
			// A connection still inside the transaction must serve no
			// other statement: database/sql closes one reported bad.
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	hits, err := snapshot{conn}.search(ctx, q, ts)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	return hits, nil
}

// snapshot is one version of the index, read inside a transaction.
type snapshot struct{ q querier }

func (s snapshot) search(ctx context.Context, q Query, ts []string) ([]Hit, error) {
	rare, common, err := s.byFrequency(ctx, ts)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = math.MaxInt32
	}
	want := min(limit*candidatesPerHit+10, math.MaxInt32)
	hits, err := s.ranked(ctx, q, rare, common, limit, want)
	if err != nil {
		return nil, err
	}
	hits = groupLogs(hits)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	for i := range hits {
		hits[i].Score = math.Round(hits[i].Score*1000) / 1000
	}
	if err := s.excerpts(ctx, hits, append(rare, common...)); err != nil {
		return nil, err
	}
	return hits, nil
}

// ranked are the documents of the words rare and common, about want of
// them, best first, with the recency tie-break applied.
func (s snapshot) ranked(ctx context.Context, q Query, rare, common []string, limit, want int) ([]Hit, error) {
	var hits []Hit
	var err error
	switch {
	case len(rare) > 0:
		// The common words are left out: ranking their documents is what
		// costs, and beside a rarer word they weigh little.
		hits, err = s.rankAll(ctx, q, matchExpr(rare), want)
	case len(common) > 1:
		// Those holding all the common words are fewer, and usually enough.
		hits, _, err = s.rank(ctx, q, strings.Join(quoted(common), " AND "), want*topFactor)
		if err == nil && len(hits) < limit {
			hits, err = s.rankAll(ctx, q, matchExpr(common), want)
		}
	case len(common) == 1:
		hits, err = s.rankAll(ctx, q, matchExpr(common), want)
	}
	if err != nil {
		return nil, err
	}
	for i := range hits {
		hits[i].Score *= 1 + recencyBoost*recency(hits[i].Date, q.Now)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits, nil
}

// excerpts cuts the excerpt of each hit and of its further lines from
// their documents' texts around the words ts, reading the texts a few
// hundred at a time (a statement takes a bounded number of arguments).
func (s snapshot) excerpts(ctx context.Context, hits []Hit, ts []string) error {
	type target struct{ excerpt, text, origin *string }
	var ids []int64
	at := map[int64]target{}
	for i := range hits {
		h := &hits[i]
		ids, at[h.id] = append(ids, h.id), target{&h.Excerpt, &h.Text, nil}
		if h.Tier == TierRecords {
			at[h.id] = target{&h.Excerpt, &h.Text, &h.Origin}
		}
		for j := range h.Lines {
			l := &h.Lines[j]
			ids, at[l.id] = append(ids, l.id), target{&l.Excerpt, &l.Text, nil}
		}
	}
	const batch = 500
	for len(ids) > 0 {
		n := min(len(ids), batch)
		err := s.texts(ctx, ids[:n], func(id int64, body string) {
			t := at[id]
			if t.origin != nil {
				*t.origin, body = originIn(body) // shown apart from the excerpt
			}
			*t.excerpt, *t.text = excerpt(body, ts), body
		})
		if err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// texts calls found with the text of each document of ids.
func (s snapshot) texts(ctx context.Context, ids []int64, found func(id int64, body string)) error {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.q.QueryContext(ctx, `SELECT id, body FROM docs WHERE id IN (`+placeholders(len(args))+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var body string
		if err := rows.Scan(&id, &body); err != nil {
			return err
		}
		found(id, body)
	}
	return rows.Err()
}
