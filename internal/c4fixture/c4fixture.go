// Package c4fixture builds real C4 databases for tests: the schema of
// c4sync.Create plus conversation rows with fixed timestamps, so hook and
// doctor tests run against SQLite exactly as a user's home holds it.
package c4fixture

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // database/sql driver "sqlite3"

	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

// Start is the timestamp of the first conversation; each next one is a
// minute later.
var Start = time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)

// Create makes the C4 database at path with n conversations, alternating
// inbound (with an endpoint) and outbound. Each content is "message <i>"
// padded with 'x' to at least size bytes.
func Create(tb testing.TB, path string, n, size int) {
	tb.Helper()
	if _, err := c4sync.Create(path); err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	stmt, err := tx.Prepare(`INSERT INTO conversations (timestamp, direction, channel, endpoint_id, content) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		dir, endpoint := "in", any("8101553026")
		if i%2 == 0 {
			dir, endpoint = "out", nil
		}
		content := fmt.Sprintf("message %d", i)
		if pad := size - len(content); pad > 0 {
			content += " " + strings.Repeat("x", pad)
		}
		ts := Start.Add(time.Duration(i) * time.Minute).Format("2006-01-02 15:04:05")
		if _, err := stmt.Exec(ts, dir, "telegram", endpoint, content); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// SampleCore is a small core.md.
const SampleCore = "# Core Memory\n\n## Identity\nI am Zylos.\n\n## Active Working State\nShipping the hooks.\n"

// Home describes a zylos home for a hook or doctor test.
type Home struct {
	Core      string // core.md content; "" leaves it out, "<dir>" makes it a directory
	Convs     int    // C4 conversations; -1 leaves the database out
	ConvSize  int    // bytes per conversation
	CorruptC4 bool
}

// Build makes the home in a temporary directory. It is a v2 home even
// without a core.md: its layout is set to v2 (tiers.LayoutVar), as a home
// without memory files is otherwise taken for today's zylos (v0.7.1).
func (h Home) Build(tb testing.TB) tiers.Layout {
	tb.Helper()
	l := tiers.Layout{ZylosDir: filepath.Join(tb.TempDir(), "zylos"), LayoutEnv: tiers.KindV2.Name}
	if err := os.MkdirAll(l.MemoryDir(), 0o755); err != nil {
		tb.Fatal(err)
	}
	switch h.Core {
	case "":
	case "<dir>":
		os.MkdirAll(l.CoreFile(), 0o755)
	default:
		os.WriteFile(l.CoreFile(), []byte(h.Core), 0o644)
	}
	switch {
	case h.CorruptC4:
		os.MkdirAll(filepath.Dir(l.C4DB()), 0o755)
		os.WriteFile(l.C4DB(), bytes.Repeat([]byte("not a database "), 500), 0o644)
	case h.Convs >= 0:
		Create(tb, l.C4DB(), h.Convs, h.ConvSize)
	}
	return l
}
