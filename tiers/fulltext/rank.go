package fulltext

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// commonDocs is the document count above which a word is common: ranking
// reads every document of every word searched, about a microsecond each,
// and a word in thousands of documents tells BM25 less than the rarer
// words beside it (its weight falls with the count).
const commonDocs = 5000

// byFrequency sorts the words of a query the index holds into rare and
// common ones (found in more than commonDocs documents); words it does not
// hold are left out. An index of no more documents than that has no
// common word, and its words are not counted: one found nowhere then
// costs the ranking nothing.
func (s snapshot) byFrequency(ctx context.Context, ts []string) (rare, common []string, err error) {
	// max(id) is read from the primary key at once; it overstates the
	// document count after deletions, which only costs a count.
	var maxID int
	if err := s.q.QueryRowContext(ctx, `SELECT COALESCE(max(id), 0) FROM docs`).Scan(&maxID); err != nil {
		return nil, nil, err
	}
	if maxID <= commonDocs {
		return ts, nil, nil
	}
	for _, t := range ts {
		var n int
		// counting stops past commonDocs: a common word costs no more
		err := s.q.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?)`,
			matchExpr([]string{t}), commonDocs+1).Scan(&n)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case n == 0: // nothing to rank it by
		case n <= commonDocs:
			rare = append(rare, t)
		default:
			common = append(common, t)
		}
	}
	return rare, common, nil
}

// topFactor is how many more documents than wanted are ranked before the
// filters (tiers, dates, statuses) apply; logLinesFactor how many more
// again before each log is cut to its best lines.
const (
	topFactor      = 4
	logLinesFactor = 4
)

// rank returns the documents matching the FTS5 expression match among
// the best top*logLinesFactor by BM25 that pass q's filters, each log cut
// to its best maxLinesPerLog lines, the best top of them, with their
// relevance as Score; and passed, how many of those ranked passed the
// filters before the logs were cut. Cutting the logs in the query lets a
// log of a hundred matching lines leave room for other places without
// ranking again (a log's lines share its day, so the recency tie-break
// does not reorder them).
func (s snapshot) rank(ctx context.Context, q Query, match string, top int) (hits []Hit, passed int, err error) {
	where, args := q.filters()
	sqlText := fmt.Sprintf(`WITH m AS (SELECT rowid AS id, bm25(fts, %g, %g, %g, %g) AS r FROM fts
		WHERE fts MATCH ? ORDER BY r LIMIT ?),
		top AS (SELECT m.id, m.r, row_number() OVER (PARTITION BY CASE WHEN d.tier IN ('%s', '%s') OR d.category <> ''
			THEN -d.id ELSE d.path END ORDER BY m.r) AS n FROM m JOIN docs d ON d.id = m.id WHERE 1%s)
		SELECT o.id, o.path, o.tier, o.line, o.day, o.status, o.category, o.title, o.tags, top.r, (SELECT count(*) FROM top)
		FROM top JOIN docs o ON o.id = top.id WHERE top.n <= %d ORDER BY top.r LIMIT ?`,
		titleWeight, tagsWeight, bodyWeight, cjkWeight, TierRecords, TierC4, where, maxLinesPerLog)
	args = append(append([]any{match, min(top*logLinesFactor, math.MaxInt32)}, args...), top)
	rows, err := s.q.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var h Hit
		var path, tags string
		if err := rows.Scan(&h.id, &path, &h.Tier, &h.Line, &h.Date, &h.Status, &h.Category, &h.Title, &tags, &h.Score, &passed); err != nil {
			return nil, 0, err
		}
		h.Score = -h.Score
		h.Tags = strings.Fields(tags)
		h.Path, h.Cite = cite(path, h.Line, h.Tier)
		if h.Tier == TierRecords {
			h.Line = 0
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return hits, passed, nil
}

// rankAll is rank of the best want*topFactor documents, or of all of
// them when the filters leave fewer than want of the best.
func (s snapshot) rankAll(ctx context.Context, q Query, match string, want int) ([]Hit, error) {
	hits, passed, err := s.rank(ctx, q, match, want*topFactor)
	if err == nil && passed < want && s.beyond(ctx, match, want*topFactor*logLinesFactor) {
		hits, _, err = s.rank(ctx, q, match, math.MaxInt32)
	}
	return hits, err
}

// beyond reports whether match has more than top documents, so that
// ranking them all could find hits the top left out.
func (s snapshot) beyond(ctx context.Context, match string, top int) bool {
	var n int
	err := s.q.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT 1 OFFSET ?)`,
		match, top).Scan(&n)
	return err == nil && n > 0
}

// filters are the SQL conditions and arguments of q's tiers, dates and
// statuses.
func (q Query) filters() (string, []any) {
	var b strings.Builder
	var args []any
	if len(q.Tiers) > 0 {
		b.WriteString(" AND d.tier IN (" + placeholders(len(q.Tiers)) + ")")
		for _, t := range q.Tiers {
			args = append(args, t)
		}
	}
	if q.Since != "" {
		b.WriteString(" AND d.day >= ?")
		args = append(args, q.Since)
	}
	if q.Until != "" {
		b.WriteString(" AND d.day <> '' AND d.day <= ?")
		args = append(args, q.Until)
	}
	statuses := []any{statusActive}
	if q.IncludeRetired {
		statuses = append(statuses, statusRetired)
	}
	if q.IncludeArchived {
		statuses = append(statuses, statusArchived)
	}
	b.WriteString(" AND d.status IN (" + placeholders(len(statuses)) + ")")
	return b.String(), append(args, statuses...)
}

// placeholders is a list of n SQL parameters: "?, ?, ?".
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// recency is 1 for a document of now's day, halving every
// recencyHalfLife days; 0 undated.
func recency(day string, now time.Time) float64 {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil || now.IsZero() {
		return 0
	}
	age := now.Sub(t).Hours() / 24
	if age < 0 {
		age = 0
	}
	return math.Exp2(-age / recencyHalfLife)
}

// cite is how a hit is cited: c4:ID, a record's path, or path:line.
func cite(path string, line int, tier string) (string, string) {
	switch {
	case tier == TierC4:
		return "", fmt.Sprintf("c4:%d", line)
	case tier == TierRecords:
		return path, path
	}
	return path, fmt.Sprintf("%s:%d", path, line)
}
