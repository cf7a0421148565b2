package scheduler

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	c4sync "github.com/zylos/zylos-memory/sync"
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
	if err := updateSearchIndex(fulltext.ScopeOf(l, "", c4sync.OpenConversations)); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("**11:00** - the capybara arrived\n")
	f.Close()
	if err := updateSearchIndex(fulltext.ScopeOf(l, "", c4sync.OpenConversations)); err != nil {
		t.Fatal(err)
	}
	ix, err := fulltext.Open(context.Background(), fulltext.ScopeOf(l, "", c4sync.OpenConversations), fulltext.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	hits, err := ix.Search(context.Background(), fulltext.Query{Text: "capybara"})
	if err != nil || len(hits) != 1 || hits[0].Cite != "memory/sessions/2026-03-01.md:4" {
		t.Errorf("hits %+v, %v", hits, err)
	}
}

// TestTheServiceKeepsTheIndex: KeepSearchIndex builds a missing index,
// takes in a line written after, and goes on after a rebuild replaced the
// index's file.
func TestTheServiceKeepsTheIndex(t *testing.T) {
	l := tiers.Layout{ZylosDir: filepath.Join(t.TempDir(), "zylos")}
	if _, err := tiers.Init(l, time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC), false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		KeepSearchIndex(ctx, l, slog.New(slog.DiscardHandler), 50*time.Millisecond)
	}()
	defer func() { cancel(); <-done }()
	h := fulltext.ScopeOf(l, "", c4sync.OpenConversations)
	found := func(word string) bool {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			ix, err := fulltext.OpenRead(h, time.Second)
			if err != nil {
				continue
			}
			hits, err := ix.Search(context.Background(), fulltext.Query{Text: word})
			ix.Close()
			if err == nil && len(hits) > 0 {
				return true
			}
		}
		return false
	}
	appendLine := func(text string) {
		f, err := os.OpenFile(l.CurrentSession(), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("**11:00** - " + text + "\n")
		f.Close()
	}
	appendLine("the wombat arrived")
	if !found("wombat") {
		t.Fatal("the index was not built with the line")
	}
	if err := fulltext.Rebuild(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	appendLine("the quoll left")
	if !found("quoll") {
		t.Fatal("a line written after a rebuild was not taken in")
	}
}
