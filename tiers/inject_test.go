package tiers

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zylos/zylos-memory/internal/jsstring"
	"github.com/zylos/zylos-memory/internal/testutil"
)

func TestCapContext(t *testing.T) {
	line := func(n int, c string) string { return strings.Repeat(c, n-1) + "\n" }
	tests := []struct {
		name  string
		text  string
		limit int
	}{
		{"under the limit", "short\ntext\n", 100},
		{"exactly the limit", line(50, "a") + line(50, "b"), 100},
		{"cut on a line", line(60, "a") + line(60, "b") + line(60, "c") + line(60, "d"), 300},
		{"no trailing newline", line(60, "a") + line(60, "b") + strings.Repeat("c", 300), 300},
		{"one huge line", strings.Repeat("x", 1000), 300},
		{"multibyte", strings.Repeat("é", 100) + "\n" + strings.Repeat("😀", 200) + "\n", 300},
		{"astral counts two", strings.Repeat("😀", 120) + "\n" + strings.Repeat("😀", 120) + "\n", 300},
		{"limit below marker", strings.Repeat("y\n", 100), 20},
	}
	var golden bytes.Buffer
	for _, tt := range tests {
		got := CapContextFor(tt.text, tt.limit, "Read more in core.md.")
		if n := jsstring.Len(got); n > tt.limit {
			t.Errorf("%s: %d characters, limit %d", tt.name, n, tt.limit)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: cut inside a rune", tt.name)
		}
		if jsstring.Len(tt.text) <= tt.limit && got != tt.text {
			t.Errorf("%s: text within the limit was changed", tt.name)
		}
		golden.WriteString("=== " + tt.name + "\n" + got + "\n")
	}
	testutil.Golden(t, "testdata/capcontext.golden", golden.Bytes())
}

func FuzzCapContext(f *testing.F) {
	f.Add("a\nb\nc\n", 3)
	f.Add(strings.Repeat("😀\n", 50), 40)
	f.Add("\xff\xfe\n\n", 2)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		if limit < 0 || limit > 1<<16 {
			return
		}
		got := CapContext(text, limit)
		if jsstring.Len(text) <= limit {
			if got != text {
				t.Fatalf("text within the limit changed")
			}
			return
		}
		if jsstring.Len(got) > limit {
			t.Fatalf("CapContext(%q, %d) = %q: %d characters", text, limit, got, jsstring.Len(got))
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("cut inside a rune: %q", got)
		}
	})
}

func TestWriteInjectFormats(t *testing.T) {
	l := Layout{ZylosDir: t.TempDir()}
	os.MkdirAll(l.MemoryDir(), 0o755)
	core := "# Core\n" + strings.Repeat("line of core memory\n", 600)
	os.WriteFile(l.CoreFile(), []byte(core), 0o644)
	for _, format := range []string{FormatV2, FormatClaude, FormatText} {
		var out bytes.Buffer
		if err := WriteInject(&out, l, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		got := strings.ReplaceAll(out.String(), l.ZylosDir, "$ZYLOS_DIR")
		testutil.Golden(t, filepath.Join("testdata", "inject."+format+".golden"), []byte(got))
	}
	if err := WriteInject(new(bytes.Buffer), l, "yaml"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestCoreContextErrors(t *testing.T) {
	l := Layout{ZylosDir: t.TempDir()}
	if got, err := CoreContext(l); err != nil || got != noCoreText {
		t.Errorf("missing core.md: %q, %v", got, err)
	}
	os.MkdirAll(l.CoreFile(), 0o755)
	if _, err := CoreContext(l); err == nil || !strings.Contains(err.Error(), "read core memory") {
		t.Errorf("core.md a directory: %v", err)
	}
}

func BenchmarkWriteInject(b *testing.B) {
	l := Layout{ZylosDir: b.TempDir()}
	os.MkdirAll(l.MemoryDir(), 0o755)
	os.WriteFile(l.CoreFile(), []byte(strings.Repeat("a line of core memory, \"quoted\"\n", 90)), 0o644)
	for _, format := range []string{FormatV2, FormatClaude} {
		b.Run(format, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := WriteInject(io.Discard, l, format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
