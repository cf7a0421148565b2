package c4sync

import (
	"database/sql"
	"errors"
	"time"
)

// keysTable remembers which key queued which conversation. It is a table
// of zylos-memory's own, created in c4.db only when first needed: the
// conversations table the Node C4 owns is left exactly as it is (no
// column, no marker in the content the agent reads), and a C4 that does
// not know the table never looks at it.
const keysTable = `CREATE TABLE IF NOT EXISTS zylos_memory_queue_keys (
	key             TEXT PRIMARY KEY,
	conversation_id INTEGER NOT NULL,
	queued_at       TEXT NOT NULL
)`

// keyRetention is how long a key is remembered. A key only guards the
// retry of an interrupted run, which happens at the next start.
const keyRetention = 30 * 24 * time.Hour

// execer is what the database and a transaction share.
type execer interface {
	Exec(query string, args ...any) (sql.Result, error)
}

// EnqueueOnce queues m unless a message was already queued under key, and
// returns the id of the conversation that key queued. The message and its
// key are written in one transaction, so after a crash at any moment
// either both exist or neither: a caller that retries with the same key
// can never queue a second copy, nor mistake another message for its own.
func (db *DB) EnqueueOnce(m Message, key string) (id int64, queued bool, err error) {
	if err := m.validate(); err != nil {
		return 0, false, err
	}
	tx, err := db.sql.Begin()
	if err != nil {
		return 0, false, db.wrap("queue message", err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(keysTable); err != nil {
		return 0, false, db.wrap("queue message", err)
	}
	err = tx.QueryRow(`SELECT conversation_id FROM zylos_memory_queue_keys WHERE key = ?`, key).Scan(&id)
	switch {
	case err == nil:
		return id, false, nil
	case !errors.Is(err, sql.ErrNoRows):
		return 0, false, db.wrap("find queued message", err)
	}
	if id, err = db.insertMessage(tx, m); err != nil {
		return 0, false, err
	}
	now := db.now()
	if _, err := tx.Exec(`INSERT INTO zylos_memory_queue_keys (key, conversation_id, queued_at) VALUES (?, ?, ?)`,
		key, id, sqliteTime(now)); err != nil {
		return 0, false, db.wrap("queue message", err)
	}
	if _, err := tx.Exec(`DELETE FROM zylos_memory_queue_keys WHERE queued_at < ?`, sqliteTime(now.Add(-keyRetention))); err != nil {
		return 0, false, db.wrap("queue message", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, false, db.wrap("queue message", err)
	}
	return id, true, nil
}

// QueuedFor is the conversation queued under key, if any. It writes
// nothing: a C4 database that never had a key has no keys table.
func (db *DB) QueuedFor(key string) (id int64, found bool, err error) {
	var tables int
	if err := db.sql.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'zylos_memory_queue_keys'`).Scan(&tables); err != nil {
		return 0, false, db.wrap("find queued message", err)
	}
	if tables == 0 {
		return 0, false, nil
	}
	err = db.sql.QueryRow(`SELECT conversation_id FROM zylos_memory_queue_keys WHERE key = ?`, key).Scan(&id)
	switch {
	case err == nil:
		return id, true, nil
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	}
	return 0, false, db.wrap("find queued message", err)
}
