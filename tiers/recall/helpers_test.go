package recall

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/fixture/benchtree"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/records"
)

// now is the fixed clock of every test.
var now = time.Date(2026, 3, 15, 10, 30, 0, 0, time.UTC)

// rec describes one record file for a test tree.
type rec struct {
	cat, id, title string
	tags           []string
	status         string // "" = active
	updated        time.Time
	content        map[string]any
	changes        []string
}

// home is a zylos home in a temp dir with its records root.
type home struct {
	layout tiers.Layout
	root   string
}

func newHome(tb testing.TB) home {
	tb.Helper()
	l := tiers.Layout{ZylosDir: filepath.Join(tb.TempDir(), "zylos")}
	h := home{layout: l, root: l.RecordsDir()}
	for _, d := range []string{h.root, l.ReferenceDir(), l.ArchiveDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	return h
}

// write stores r as a record file (no index update).
func (h home) write(tb testing.TB, r rec) string {
	tb.Helper()
	if r.updated.IsZero() {
		r.updated = now.AddDate(0, -6, 0)
	}
	status := r.status
	if status == "" {
		status = records.StatusActive
	}
	at := r.updated.Format(time.RFC3339)
	var changes []records.Change
	for _, c := range r.changes {
		changes = append(changes, records.Change{Date: at, Summary: c})
	}
	return benchtree.Write(tb, h.root, records.Record{
		SchemaVersion: "1.0", Category: r.cat, ID: r.id, Title: r.title, RecordStatus: status,
		CreatedAt: at, UpdatedAt: at, Tags: r.tags, Content: r.content,
		Changes: changes, TimesUpdated: len(changes),
	})
}

// rebuild writes index.md from the active records, as `records index
// --rebuild` does.
func (h home) rebuild(tb testing.TB) {
	tb.Helper()
	if _, err := records.RebuildIndex(h.root, nil); err != nil {
		tb.Fatal(err)
	}
}

func (h home) file(tb testing.TB, rel, text string) {
	tb.Helper()
	p := filepath.Join(h.layout.MemoryDir(), rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func (h home) retrieve(tb testing.TB, prompt string) string {
	tb.Helper()
	out, err := Retrieve(tb.Context(), RetrieveOptions{Prompt: prompt, Root: h.root, Layout: h.layout, Now: now})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// sampleHome is the tree of the golden tests: a record of each category,
// one retired, one recent, and a hand-written decisions.md.
func sampleHome(tb testing.TB) home {
	h := newHome(tb)
	h.write(tb, rec{cat: "decision", id: "use-jwt-auth", title: "Use JWT for authentication",
		tags: []string{"auth", "jwt", "security"},
		content: map[string]any{"status": "accepted", "context": "Sessions did not scale",
			"decision": "Stateless JWT access tokens", "rationale": []any{"No session store", "Works across services"}},
		changes: []string{"Initial creation", "Added refresh token rotation"}})
	h.write(tb, rec{cat: "constraint", id: "auth-rate-limit", title: "Auth endpoint rate limit",
		tags: []string{"auth", "rate-limit"}, updated: now.AddDate(0, 0, -3),
		content: map[string]any{"rule": "Max 10 logins per minute", "impact": []any{"Bursty tests fail"}, "severity": "high"}})
	h.write(tb, rec{cat: "tech_debt", id: "legacy-session-cleanup", title: "Legacy session table cleanup",
		tags:    []string{"database", "sessions"},
		content: map[string]any{"description": "Drop the old sessions table", "priority": "low", "status": "open"}})
	h.write(tb, rec{cat: "runbook", id: "rotate-jwt-keys", title: "Rotate JWT signing keys",
		tags: []string{"jwt", "ops"}, status: records.StatusRetired})
	h.write(tb, rec{cat: "preference", id: "prefer-go", title: "Prefer Go for services",
		tags: []string{"golang", "language"}})
	h.rebuild(tb)
	h.file(tb, "reference/decisions.md", `# Decisions

### [2026-03-10] Postgres for the authentication store
- **Decision:** Postgres holds users and refresh tokens
- **Context:** One database to operate
- **Status:** active

### [2025-01-02] MySQL for everything
- **Decision:** MySQL
- **Status:** superseded by Postgres
`)
	return h
}
