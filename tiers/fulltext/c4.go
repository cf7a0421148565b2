package fulltext

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/zylos/zylos-memory/internal/sqliteuri"
)

// Meta keys of the C4 part of the index: the highest row id indexed, and
// the size and modification times of c4.db and its WAL when it was read,
// so that an unchanged c4.db is not even opened.
const (
	metaC4ID   = "c4_id"
	metaC4Stat = "c4_stat"
)

// c4BusyTimeout bounds the wait for a writer holding c4.db: the rows are
// indexed by a later update instead.
const c4BusyTimeout = 200

// c4 indexes the conversations added to c4.db since the watermark. c4.db
// is opened read-only; a missing, locked or unreadable one is skipped with
// a warning (missing: silently) and the rows already indexed stay.
func (u *updater) c4() error {
	path := u.home.Layout.C4DB()
	stat := c4Stat(path)
	if stat == u.meta(metaC4Stat) {
		return nil
	}
	if err := u.changed(); err != nil {
		return err
	}
	if stat == "" {
		return u.setMeta(metaC4Stat, "")
	}
	if err := sqliteuri.CheckFiles(path); err != nil {
		u.warn("c4: %v", err)
		return nil
	}
	q := sqliteuri.ReadOnly(path)
	q.Set("_busy_timeout", strconv.Itoa(c4BusyTimeout))
	db, err := sql.Open("sqlite3", sqliteuri.URI(path, q))
	if err != nil {
		u.warn("c4: %v", err)
		return nil
	}
	defer db.Close()
	watermark, _ := strconv.ParseInt(u.meta(metaC4ID), 10, 64)
	var top sql.NullInt64
	if err := db.QueryRowContext(u.ctx, `SELECT max(id) FROM conversations`).Scan(&top); err != nil {
		u.warn("c4: %s: %v", path, err)
		return nil
	}
	if top.Int64 < watermark { // a new c4.db: its ids start again
		if err := u.deleteDocs(c4Path, allLines); err != nil {
			return err
		}
		watermark = 0
	}
	last, err := u.c4Rows(db, watermark)
	if err != nil {
		u.warn("c4: %s: %v", path, err)
	}
	if err := u.setMeta(metaC4ID, strconv.FormatInt(last, 10)); err != nil {
		return err
	}
	if err != nil {
		return nil // not remembered as read: tried again next time
	}
	return u.setMeta(metaC4Stat, stat)
}

// c4Rows indexes the rows after id from and returns the last id indexed.
func (u *updater) c4Rows(db *sql.DB, from int64) (int64, error) {
	rows, err := db.QueryContext(u.ctx, `SELECT id, COALESCE(timestamp, ''), COALESCE(direction, ''),
		COALESCE(channel, ''), COALESCE(CAST(content AS BLOB), x'') FROM conversations WHERE id > ? ORDER BY id`, from)
	if err != nil {
		return from, err
	}
	defer rows.Close()
	last := from
	for rows.Next() {
		var id int64
		var ts, direction, channel string
		var content []byte
		if err := rows.Scan(&id, &ts, &direction, &channel, &content); err != nil {
			return last, err
		}
		day, _ := dayPrefix(ts)
		d := doc{line: int(id), day: day, status: statusActive, category: direction + " " + channel,
			body: clip(toValidUTF8(content), maxDocBytes)}
		if err := u.insert(c4Path, TierC4, d); err != nil {
			return last, err
		}
		last = id
		u.st.C4Rows++
	}
	return last, rows.Err()
}

// c4Stat is the size and modification time of c4.db and its WAL, "" when
// there is no c4.db.
func c4Stat(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	s := fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
	if wal, err := os.Stat(path + "-wal"); err == nil {
		s += fmt.Sprintf(":%d:%d", wal.Size(), wal.ModTime().UnixNano())
	}
	return s
}

func (u *updater) meta(key string) string {
	var v string
	if err := u.q.QueryRowContext(u.ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v); err != nil &&
		!errors.Is(err, sql.ErrNoRows) {
		return ""
	}
	return v
}

func (u *updater) setMeta(key, value string) error {
	_, err := u.q.ExecContext(u.ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)`, key, value)
	return err
}
