package tiers

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestSessionDate(t *testing.T) {
	tests := []struct {
		content, want string
	}{
		{"# Session Log: 2026-03-14\n", "2026-03-14"},
		{"# Session Log: 2026-03-14", "2026-03-14"},
		{"# Session Log: 2026-03-14 extra", "2026-03-14"},
		{"intro\n# Session Log: 2026-03-10\n# Session Log: 2026-03-11\n", "2026-03-10"},
		{"x\r# Session Log: 2026-03-11", "2026-03-11"},
		{"x\u2028# Session Log: 2026-03-12", "2026-03-12"},
		{" # Session Log: 2026-03-14", ""},
		{"## Session Log: 2026-03-14", ""},
		{"# Session Log: 2026-3-14", ""},
		{"# Session Log: ２０２６-03-14", ""}, // \d is ASCII only
		{"# Session Log: 2026-13-45", "2026-13-45"},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := SessionDate(tt.content)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("SessionDate(%q) = %q, %v; want %q", tt.content, got, ok, tt.want)
		}
	}
}

// jsHeader is the Node script's regular expression; Go's (?m) ^ matches
// only after \n, so \r, U+2028 and U+2029 are turned into \n first.
var jsHeader = regexp.MustCompile(`(?m)^# Session Log: ([0-9]{4}-[0-9]{2}-[0-9]{2})`)

func FuzzSessionDate(f *testing.F) {
	f.Add("# Session Log: 2026-03-14\n")
	f.Add("a\r# Session Log: 2026-03-14")
	f.Add("# Session Log: # Session Log: 2026-01-01")
	f.Fuzz(func(t *testing.T, content string) {
		got, ok := SessionDate(content)
		norm := strings.NewReplacer("\r", "\n", "\u2028", "\n", "\u2029", "\n").Replace(content)
		m := jsHeader.FindStringSubmatch(norm)
		if (m != nil) != ok || (m != nil && m[1] != got) {
			t.Fatalf("SessionDate(%q) = %q, %v; regexp says %q", content, got, ok, m)
		}
	})
}

func newSessions(t *testing.T, files map[string]string) Layout {
	t.Helper()
	l := Layout{ZylosDir: t.TempDir()}
	os.MkdirAll(l.SessionsDir(), 0o755)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(l.SessionsDir(), name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func TestRotateCollisionsNeverClobber(t *testing.T) {
	l := newSessions(t, map[string]string{
		"2026-03-14.md":   "first",
		"2026-03-14-1.md": "second",
		"current.md":      "# Session Log: 2026-03-14\nthird",
	})
	now := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	steps, err := Rotate(l, now)
	msgs := steps.Messages(KindV2)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Rotated: current.md -> 2026-03-14-2.md", "Created fresh current.md for 2026-03-15"}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages = %q, want %q", msgs, want)
	}
	for name, content := range map[string]string{
		"2026-03-14.md": "first", "2026-03-14-1.md": "second",
		"2026-03-14-2.md": "# Session Log: 2026-03-14\nthird", "current.md": "# Session Log: 2026-03-15\n\n",
	} {
		if got, _ := os.ReadFile(filepath.Join(l.SessionsDir(), name)); string(got) != content {
			t.Errorf("%s = %q, want %q", name, got, content)
		}
	}
}

func TestRotateHeaderlessUsesMtimeInLocation(t *testing.T) {
	l := newSessions(t, map[string]string{"current.md": "notes"})
	// 23:30 UTC on 10 March is already 11 March in Shanghai.
	mtime := time.Date(2026, 3, 10, 23, 30, 0, 0, time.UTC)
	os.Chtimes(l.CurrentSession(), mtime, mtime)
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	steps, err := Rotate(l, time.Date(2026, 3, 15, 9, 0, 0, 0, shanghai))
	msgs := steps.Messages(KindV2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(msgs[0], "Rotated: current.md -> 2026-03-11.md") {
		t.Errorf("messages = %q", msgs)
	}
	if got, _ := os.ReadFile(filepath.Join(l.SessionsDir(), "2026-03-11.md")); string(got) != "notes" {
		t.Errorf("archived content = %q", got)
	}
}

func TestRotateRefusesOddCurrent(t *testing.T) {
	now := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	l := newSessions(t, map[string]string{"real.md": "# Session Log: 2026-03-14\n"})
	os.Symlink("real.md", l.CurrentSession())
	if _, err := Rotate(l, now); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("symlink current.md: err = %v", err)
	}
	if target, err := os.Readlink(l.CurrentSession()); err != nil || target != "real.md" {
		t.Errorf("symlink changed: %q, %v", target, err)
	}
	l = newSessions(t, nil)
	os.MkdirAll(filepath.Join(l.CurrentSession(), "inner"), 0o755)
	if _, err := Rotate(l, now); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory current.md: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(l.CurrentSession(), "inner")); err != nil {
		t.Errorf("directory changed: %v", err)
	}
}

// A rotation that died between linking and removing current.md is
// finished by the next run instead of leaving a second copy.
func TestRotateFinishesInterruptedRotation(t *testing.T) {
	l := newSessions(t, map[string]string{"current.md": "# Session Log: 2026-03-14\nlog"})
	if err := os.Link(l.CurrentSession(), filepath.Join(l.SessionsDir(), "2026-03-14.md")); err != nil {
		t.Fatal(err)
	}
	steps, err := Rotate(l, time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC))
	msgs := steps.Messages(KindV2)
	if err != nil {
		t.Fatal(err)
	}
	if msgs[0] != "Rotated: current.md -> 2026-03-14.md" {
		t.Errorf("messages = %q", msgs)
	}
	es, _ := os.ReadDir(l.SessionsDir())
	if len(es) != 2 {
		t.Errorf("sessions holds %d files, want 2026-03-14.md and current.md", len(es))
	}
}

func BenchmarkRotateSameDay(b *testing.B) {
	l := Layout{ZylosDir: b.TempDir()}
	now := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	if _, err := Rotate(l, now); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := Rotate(l, now); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSessionDateV071: zylos-core v0.7.1 reads a header with blanks
// around its date and nothing after it, where the v2-era pattern wants
// one space and takes anything after.
func TestSessionDateV071(t *testing.T) {
	for content, want := range map[string]string{
		"# Session Log: 2026-03-14\n":          "2026-03-14",
		"# Session Log:2026-03-14":             "2026-03-14",
		"# Session Log:\t2026-03-14 \r\n":      "2026-03-14",
		"x\r# Session Log: 2026-03-14\r":       "2026-03-14",
		"x\u2028# Session Log: 2026-03-14":     "2026-03-14",
		"# Session Log:\n2026-03-14\n":         "2026-03-14",
		"# Session Log: 2026-03-14 (Friday)\n": "",
		"notes # Session Log: 2026-03-14\n":    "",
		"# Session Log: 2026-3-14\n":           "",
		"":                                     "",
	} {
		got, ok := sessionDateV071(content)
		if got != want || ok != (want != "") {
			t.Errorf("%q: %q %v, want %q", content, got, ok, want)
		}
	}
}
