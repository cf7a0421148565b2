package entries

import (
	"bytes"
	"strings"
	"testing"
)

// A paragraph of more emphasis delimiters than the bound reaches the
// parser with the rest as letters, its line markers and field labels
// kept: the entry and its fields are still found, offsets unchanged.
func TestBoundDelimitersKeepsEntriesAndFields(t *testing.T) {
	hostile := strings.Repeat("*a_ ", 70<<10) // 280 KB on one line
	src := []byte("### [2025-01-01] Keep\n- **Decision:** " + hostile + "\n- **Status:** active\n\n### [2025-01-02] After\n- **Decision:** y\n")
	got := bounded(src)
	if len(got) != len(src) {
		t.Fatalf("length %d, want %d", len(got), len(src))
	}
	if n := bytes.Count(got, []byte("*")) + bytes.Count(got, []byte("_")); n > 16 {
		t.Errorf("the parser sees %d delimiters", n)
	}
	entries := Parse("reference/decisions.md", src)
	if len(entries) != 2 || entries[0].Title != "Keep" || entries[0].Fields["Status"] != "active" ||
		!strings.HasPrefix(entries[0].Fields["Decision"], "*a_ *a_") || entries[1].Title != "After" {
		t.Errorf("entries = %+v", clipEntries(entries))
	}
	// Many lines of few delimiters each make a paragraph of many as well.
	lines := []byte("### [2025-01-01] Lines\n" + strings.Repeat("- **Note:** *a_ *a_ *a_\n", 2000))
	if got := bounded(lines); bytes.Count(got, []byte("*a_")) != 0 || bytes.Count(got, []byte("- **Note:** ")) != 2000 {
		t.Errorf("many lines: %.200q", got)
	}
	normal := []byte("### [2025-01-01] Keep\n- **Decision:** *x* and _y_\n\n* * *\n")
	if got := bounded(normal); &got[0] != &normal[0] {
		t.Errorf("a normal file was copied or changed: %q", got)
	}
}

func clipEntries(es []Entry) []string {
	var out []string
	for _, e := range es {
		d := e.Fields["Decision"]
		out = append(out, e.Title+" "+d[:min(len(d), 20)]+" "+e.Fields["Status"])
	}
	return out
}

func BenchmarkParseEntriesHostileDelimiters(b *testing.B) {
	src := []byte("### [2025-01-01] Keep\n- **Decision:** " + strings.Repeat("*a_ ", 70<<10) + "\n")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		Parse("reference/decisions.md", src)
	}
}
