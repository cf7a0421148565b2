package c4sync

import (
	"database/sql"
	"strconv"
	"strings"
)

// Conversation is one row of the conversations table, as the sync reads it.
type Conversation struct {
	ID        int64
	Timestamp string // SQLite UTC text, printed as stored
	Direction string
	Channel   string
	Endpoint  string
	Content   string
}

// CAST keeps timestamps as the stored text: the driver would otherwise turn
// a DATETIME column into a time.Time and reformat it.
const selectConversations = `SELECT id, COALESCE(CAST(timestamp AS TEXT), ''), direction, channel,
 COALESCE(endpoint_id, ''), CAST(content AS BLOB) FROM conversations `

// Conversations returns the rows with begin <= id <= end in id order.
func (db *DB) Conversations(begin, end int64) ([]Conversation, error) {
	rows, err := db.sql.Query(selectConversations+`WHERE id >= ? AND id <= ? ORDER BY id`, begin, end)
	if err != nil {
		return nil, db.wrap("fetch conversations", err)
	}
	return db.scanConversations(rows)
}

// lastConversations returns the newest n rows after id, oldest first.
func (db *DB) lastConversations(after int64, n int) ([]Conversation, error) {
	rows, err := db.sql.Query(selectConversations+`WHERE id > ? ORDER BY id DESC LIMIT ?`, after, n)
	if err != nil {
		return nil, db.wrap("fetch conversations", err)
	}
	convs, err := db.scanConversations(rows)
	for i, j := 0, len(convs)-1; i < j; i, j = i+1, j-1 {
		convs[i], convs[j] = convs[j], convs[i]
	}
	return convs, err
}

func (db *DB) scanConversations(rows *sql.Rows) ([]Conversation, error) {
	defer rows.Close()
	var convs []Conversation
	for rows.Next() {
		var c Conversation
		var content []byte
		if err := rows.Scan(&c.ID, &c.Timestamp, &c.Direction, &c.Channel, &c.Endpoint, &content); err != nil {
			return nil, db.wrap("read conversation", err)
		}
		c.Content = string(content)
		convs = append(convs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("read conversations", err)
	}
	return convs, nil
}

// FormatConversations renders records as the Node C4 does: a header line
// `[<timestamp>] IN|OUT (<channel>[:<endpoint>]):`, the content, an empty
// line; records joined by newlines. Content is written verbatim.
func FormatConversations(convs []Conversation) string {
	var b strings.Builder
	for i, c := range convs {
		if i > 0 {
			b.WriteByte('\n')
		}
		dir := "OUT"
		if c.Direction == "in" {
			dir = "IN"
		}
		b.WriteString("[" + c.Timestamp + "] " + dir + " (" + c.Channel)
		if c.Endpoint != "" {
			b.WriteString(":" + c.Endpoint)
		}
		b.WriteString("):\n")
		b.WriteString(c.Content)
		b.WriteString("\n")
	}
	return b.String()
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
	convs, err := db.Conversations(begin, end)
	if err != nil {
		return "", 0, err
	}
	var b strings.Builder
	b.WriteString(summaryLine(cp))
	b.WriteString("[Conversations] (id " + strconv.FormatInt(begin, 10) + " ~ " + strconv.FormatInt(end, 10) + ")\n")
	if len(convs) == 0 {
		b.WriteString("No conversations in this range.\n")
		return b.String(), 0, nil
	}
	b.WriteString(FormatConversations(convs) + "\n")
	return b.String(), convs[len(convs)-1].ID, nil
}

// summaryLine is the checkpoint summary block, empty when there is none.
func summaryLine(cp *Checkpoint) string {
	if cp == nil || cp.Summary == nil || *cp.Summary == "" {
		return ""
	}
	return "[Last Checkpoint Summary] " + *cp.Summary + "\n\n"
}
