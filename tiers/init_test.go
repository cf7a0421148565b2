package tiers

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/templates"
)

func TestInitIsIdempotentAndNeverOverwrites(t *testing.T) {
	l := Layout{ZylosDir: t.TempDir()}
	now := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	first, err := Init(l, now, false)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Changed() || len(first.Created) != 11 {
		t.Errorf("first run created %q", first.Created)
	}
	os.WriteFile(l.CoreFile(), []byte("# My own core\n"), 0o644)
	second, err := Init(l, now, false)
	if err != nil {
		t.Fatal(err)
	}
	if second.Changed() || !strings.Contains(strings.Join(second.Lines(), "\n"), "nothing changed") {
		t.Errorf("second run: %q", second.Lines())
	}
	if got, _ := os.ReadFile(l.CoreFile()); string(got) != "# My own core\n" {
		t.Errorf("core.md overwritten: %q", got)
	}
	if got, _ := os.ReadFile(l.CurrentSession()); string(got) != "# Session Log: 2026-03-15\n\n" {
		t.Errorf("current.md = %q", got)
	}
}

func TestInitForceBacksUp(t *testing.T) {
	l := Layout{ZylosDir: t.TempDir()}
	now := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	if _, err := Init(l, now, false); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(l.CoreFile(), []byte("mine\n"), 0o644)
	os.WriteFile(l.CurrentSession(), []byte("today's log\n"), 0o644)
	for run := 0; run < 2; run++ {
		os.WriteFile(l.CoreFile(), []byte("mine\n"), 0o644)
		r, err := Init(l, now, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Replaced) != 1 || r.Replaced[0].Path != "memory/core.md" {
			t.Fatalf("run %d replaced %v", run, r.Replaced)
		}
		backup, _ := os.ReadFile(filepath.Join(l.ZylosDir, r.Replaced[0].Backup))
		if string(backup) != "mine\n" {
			t.Errorf("run %d backup = %q", run, backup)
		}
	}
	want, _ := fs.ReadFile(templates.FS, "memory/core.md")
	if got, _ := os.ReadFile(l.CoreFile()); string(got) != string(want) {
		t.Errorf("core.md not replaced by the template")
	}
	if got, _ := os.ReadFile(l.CurrentSession()); string(got) != "today's log\n" {
		t.Errorf("--force replaced the session log: %q", got)
	}
}
