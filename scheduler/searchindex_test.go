package scheduler

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/fulltext"
)

// TestRotationUpdatesSearchIndex: the daily run finds a line added in place
// to a dated log, which the quick updates of prompts do not look for.
func TestRotationUpdatesSearchIndex(t *testing.T) {
	l := tiers.Layout{ZylosDir: filepath.Join(t.TempDir(), "zylos")}
	log := filepath.Join(l.SessionsDir(), "2026-03-01.md")
	if err := os.MkdirAll(l.SessionsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, []byte("# Session Log: 2026-03-01\n\n**10:00** - first line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond) // past the index's window for recent file times
	if err := updateSearchIndex(l); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("**11:00** - the capybara arrived\n")
	f.Close()
	if err := updateSearchIndex(l); err != nil {
		t.Fatal(err)
	}
	ix, err := fulltext.Open(context.Background(), fulltext.HomeOf(l, ""), fulltext.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	hits, err := ix.Search(context.Background(), fulltext.Query{Text: "capybara"})
	if err != nil || len(hits) != 1 || hits[0].Cite != "memory/sessions/2026-03-01.md:4" {
		t.Errorf("hits %+v, %v", hits, err)
	}
}
