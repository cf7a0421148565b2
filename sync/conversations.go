package c4sync

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/zylos/zylos-memory/tiers/fulltext"
)

// recordSQL renders one conversation as the Node C4's formatConversations
// does: `[<timestamp>] IN|OUT (<channel>[:<endpoint>]):`, the content
// verbatim, a newline. Formatting inside SQLite and joining with
// group_concat hands the driver one value instead of six per row, which is
// what keeps a fetch of ten thousand records fast through cgo.
const recordSQL = `'[' || COALESCE(CAST(timestamp AS TEXT), '') || '] '
 || CASE direction WHEN 'in' THEN 'IN' ELSE 'OUT' END
 || ' (' || COALESCE(channel, '') || COALESCE(':' || NULLIF(endpoint_id, ''), '') || '):' || char(10)
 || COALESCE(content, '') || char(10)`

// records returns the rows selected by where (a clause over conversations
// ending in its own ORDER BY/LIMIT), formatted and joined by an empty line
// in id order, and the highest id among them (0 when none).
func (db *DB) records(where string, args ...any) (text string, last int64, err error) {
	var joined sql.NullString
	var max sql.NullInt64
	q := `SELECT group_concat(rec, char(10) ORDER BY id), MAX(id) FROM (SELECT id, ` + recordSQL + ` AS rec FROM conversations ` + where + `)`
	if err := db.sql.QueryRow(q, args...).Scan(&joined, &max); err != nil {
		return "", 0, db.wrap("fetch conversations", err)
	}
	return joined.String, max.Int64, nil
}

// recordList returns the rows selected by where as records does, one
// string each, in id order.
func (db *DB) recordList(where string, args ...any) ([]string, error) {
	rows, err := db.sql.Query(`SELECT rec FROM (SELECT id, `+recordSQL+` AS rec FROM conversations `+where+`) ORDER BY id`, args...)
	if err != nil {
		return nil, db.wrap("fetch conversations", err)
	}
	defer rows.Close()
	var recs []string
	for rows.Next() {
		var rec string
		if err := rows.Scan(&rec); err != nil {
			return nil, db.wrap("fetch conversations", err)
		}
		recs = append(recs, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("fetch conversations", err)
	}
	return recs, nil
}

// Fetch is the text of `c4 fetch --begin X --end Y`, newline-terminated.
func (db *DB) Fetch(begin, end int64) (string, error) {
	text, _, err := db.fetch(begin, end)
	return text, err
}

// fetch also returns the id of the last record printed (0 when none), the
// point up to which a reader has seen every conversation of the range.
func (db *DB) fetch(begin, end int64) (text string, last int64, err error) {
	cp, err := db.LatestCheckpoint()
	if err != nil {
		return "", 0, err
	}
	recs, last, err := db.records(`WHERE id >= ? AND id <= ?`, begin, end)
	if err != nil {
		return "", 0, err
	}
	var b strings.Builder
	b.WriteString(summaryLine(cp))
	b.WriteString("[Conversations] (id " + strconv.FormatInt(begin, 10) + " ~ " + strconv.FormatInt(end, 10) + ")\n")
	if recs == "" {
		b.WriteString("No conversations in this range.\n")
		return b.String(), 0, nil
	}
	b.WriteString(recs + "\n")
	return b.String(), last, nil
}

// summaryLine is the checkpoint summary block, empty when there is none.
func summaryLine(cp *Checkpoint) string {
	if cp == nil || cp.Summary == nil || *cp.Summary == "" {
		return ""
	}
	return "[Last Checkpoint Summary] " + *cp.Summary + "\n\n"
}

// FetchUnsummarized is the text of `c4 fetch --unsummarized` (zylos-core
// v0.7.1): `[Unsummarized Range] end_id=E count=N` and the fetch of that
// range, or `No unsummarized conversations.`.
func (db *DB) FetchUnsummarized() (string, error) {
	text, _, _, err := db.fetchUnsummarized()
	return text, err
}

// fetchUnsummarized also returns the range's begin and the last id printed.
func (db *DB) fetchUnsummarized() (text string, begin, last int64, err error) {
	r, err := db.Unsummarized()
	if err != nil {
		return "", 0, 0, err
	}
	if r.Count == 0 {
		return "No unsummarized conversations.\n", 0, 0, nil
	}
	text, last, err = db.fetch(*r.Begin, *r.End)
	head := "[Unsummarized Range] end_id=" + strconv.FormatInt(*r.End, 10) + " count=" + strconv.FormatInt(r.Count, 10) + "\n"
	return head + text, *r.Begin, last, err
}

// LastID is the highest conversation id, 0 when there is none.
func (db *DB) LastID(ctx context.Context) (int64, error) {
	var top sql.NullInt64
	if err := db.sql.QueryRowContext(ctx, `SELECT max(id) FROM conversations`).Scan(&top); err != nil {
		return 0, db.wrap("read conversations", err)
	}
	return top.Int64, nil
}

// ConversationsAfter calls fn with each conversation whose id is above
// after, in id order, and returns the id of the last one fn took (after
// when none): a caller stopped by an error resumes from there.
func (db *DB) ConversationsAfter(ctx context.Context, after int64, fn func(fulltext.Conversation) error) (last int64, err error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, COALESCE(timestamp, ''), COALESCE(direction, ''),
		COALESCE(channel, ''), COALESCE(CAST(content AS BLOB), x'') FROM conversations WHERE id > ? ORDER BY id`, after)
	if err != nil {
		return after, db.wrap("read conversations", err)
	}
	defer rows.Close()
	last = after
	for rows.Next() {
		var c fulltext.Conversation
		if err := rows.Scan(&c.ID, &c.Timestamp, &c.Direction, &c.Channel, &c.Content); err != nil {
			return last, db.wrap("read conversations", err)
		}
		if err := fn(c); err != nil {
			return last, err
		}
		last = c.ID
	}
	if err := rows.Err(); err != nil {
		return last, db.wrap("read conversations", err)
	}
	return last, nil
}
