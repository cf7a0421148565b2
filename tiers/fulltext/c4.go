package fulltext

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
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
const c4BusyTimeout = 200 * time.Millisecond

// c4 indexes the conversations added to c4.db since the watermark. c4.db
// is read through the scope's Conversations, read-only; a missing, locked
// or unreadable one is skipped with a warning (missing: silently) and the
// rows already indexed stay. A scope without a reader indexes none.
func (u *updater) c4() error {
	if u.scope.Conversations == nil {
		return nil
	}
	path := u.scope.Layout.C4DB()
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
	db, err := u.scope.Conversations(path, c4BusyTimeout)
	if err != nil {
		u.warn("c4: %v", err)
		return nil
	}
	defer db.Close()
	watermark, _ := strconv.ParseInt(u.meta(metaC4ID), 10, 64)
	top, err := db.LastID(u.ctx)
	if err != nil {
		u.warn("c4: %v", err)
		return nil
	}
	if top < watermark { // a new c4.db: its ids start again
		if err := u.deleteDocs(c4Path, allLines); err != nil {
			return err
		}
		watermark = 0
	}
	last, err := db.ConversationsAfter(u.ctx, watermark, u.c4Row)
	if err != nil {
		u.warn("c4: %v", err)
	}
	if err := u.setMeta(metaC4ID, strconv.FormatInt(last, 10)); err != nil {
		return err
	}
	if err != nil {
		return nil // not remembered as read: tried again next time
	}
	return u.setMeta(metaC4Stat, stat)
}

// c4Row indexes one conversation.
func (u *updater) c4Row(c Conversation) error {
	day, _ := dayPrefix(c.Timestamp)
	d := doc{line: int(c.ID), day: day, status: statusActive, category: c.Direction + " " + c.Channel,
		body: clip(toValidUTF8(c.Content), maxDocBytes)}
	if err := u.insert(c4Path, TierC4, d); err != nil {
		return err
	}
	u.st.C4Rows++
	return nil
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
