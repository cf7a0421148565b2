package c4sync

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

var fixedNow = time.Date(2026, 3, 15, 10, 30, 0, 0, time.UTC)

// newDB creates a fresh C4 database in a temp dir, open for writing.
func newDB(tb testing.TB) *DB {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "comm-bridge", "c4.db")
	if _, err := Create(path); err != nil {
		tb.Fatal(err)
	}
	db, err := OpenWrite(path)
	if err != nil {
		tb.Fatal(err)
	}
	db.SetClock(func() time.Time { return fixedNow })
	tb.Cleanup(func() { db.Close() })
	return db
}

// addConversations inserts n rows alternating in/out, one minute apart.
func addConversations(tb testing.TB, db *DB, n int) {
	tb.Helper()
	tx, err := db.sql.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	stmt, err := tx.Prepare(`INSERT INTO conversations (timestamp, direction, channel, endpoint_id, content) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < n; i++ {
		dir, endpoint := "in", any("8101553026")
		if i%2 == 1 {
			dir, endpoint = "out", nil
		}
		ts := sqliteTime(fixedNow.Add(time.Duration(i) * time.Minute))
		if _, err := stmt.Exec(ts, dir, "telegram", endpoint, "message "+strconv.Itoa(i)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}
