package scheduler

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

// home is a temp zylos home with a real C4 DB and an open state DB.
type home struct {
	l     tiers.Layout
	store *Store
	now   time.Time
	d     *Daemon
}

func newHome(tb testing.TB) *home {
	tb.Helper()
	tb.Setenv("TZ", "UTC")
	// a v2 home: without memory files it would be taken for today's zylos
	h := &home{l: tiers.Layout{ZylosDir: filepath.Join(tb.TempDir(), "zylos"), LayoutEnv: tiers.KindV2.Name}, now: mustTime(tb, "2026-03-15T10:30:00Z")}
	if _, err := c4sync.Create(h.l.C4DB()); err != nil {
		tb.Fatal(err)
	}
	s, err := Open(h.l)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	h.store = s
	h.d = &Daemon{
		Store:       s,
		Runner:      &Runner{Layout: h.l, Home: time.UTC},
		Now:         func() time.Time { return h.now },
		Log:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		Poll:        DefaultPoll,
		StatusFiles: []string{filepath.Join(h.l.ZylosDir, "agent-status.json")},
	}
	return h
}

func (h *home) add(tb testing.TB, t *Task) {
	tb.Helper()
	if t.Kind == "" {
		t.Kind = KindUser
	}
	if t.Priority == 0 {
		t.Priority = 3
	}
	if err := h.store.Add(t, h.now, time.UTC); err != nil {
		tb.Fatal(err)
	}
}

// write puts a file of the memory tree in place.
func (h *home) write(tb testing.TB, rel, content string) {
	tb.Helper()
	path := filepath.Join(h.l.MemoryDir(), rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func (h *home) tick(tb testing.TB) {
	tb.Helper()
	if _, err := h.d.tick(context.Background()); err != nil {
		tb.Fatal(err)
	}
}

func (h *home) setAgent(tb testing.TB, state string) {
	tb.Helper()
	if err := os.WriteFile(h.d.StatusFiles[0], []byte(`{"state":"`+state+`"}`), 0o600); err != nil {
		tb.Fatal(err)
	}
}

func rawC4(tb testing.TB, h *home) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite3", "file:"+h.l.C4DB()+"?_busy_timeout=5000")
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

// c4Rows returns the pending inbound C4 messages as "priority|idle|content".
func (h *home) c4Rows(tb testing.TB) []string {
	tb.Helper()
	db, err := sql.Open("sqlite3", "file:"+h.l.C4DB()+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT priority, require_idle, content FROM conversations WHERE channel = 'system' ORDER BY id`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p, idle int
		var content string
		if err := rows.Scan(&p, &idle, &content); err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(rune('0'+p))+"|"+string(rune('0'+idle))+"|"+content)
	}
	return out
}

// statuses lists a task's history as "slot status".
func (h *home) statuses(tb testing.TB, task string) []string {
	tb.Helper()
	runs, err := h.store.History(task, 100)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, r := range runs {
		out = append(out, r.Slot.Format("15:04:05")+" "+r.Status)
	}
	return out
}
