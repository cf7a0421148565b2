package tiers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The installed skill files name the home init ran for, and every command
// they show carries its --zylos-dir, so it works from any directory.
func TestInitSkillFilesNameTheHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "my home")
	l := Layout{ZylosDir: home}
	if _, err := Init(l, time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC), false); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"SKILL.md", "CLAUDE.md"} {
		data, err := os.ReadFile(filepath.Join(l.SkillDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if strings.Contains(text, "~/zylos") {
			t.Errorf("%s still names ~/zylos", name)
		}
		want := "zylos-memory --zylos-dir '" + home + "' "
		if strings.Count(text, "zylos-memory ") != strings.Count(text, want) || !strings.Contains(text, want+"records write") {
			t.Errorf("%s has commands without --zylos-dir %q", name, home)
		}
		if !strings.Contains(text, "One Memory, Two Ways to Write") {
			t.Errorf("%s does not describe the one memory", name)
		}
	}
}
