package entries

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// hostileNesting are inputs whose nesting made the parser's work grow
// with its square: seconds for 80 KB, hours for 4 MB.
func hostileNesting() map[string][]byte {
	var indented strings.Builder
	for i := 0; i < 1900; i++ {
		indented.WriteString(strings.Repeat("  ", i) + "- a\n")
	}
	return map[string][]byte{
		"lists on one line":   []byte(strings.Repeat("- ", 40000) + "x\n"),
		"quotes on one line":  []byte(strings.Repeat("> ", 40000) + "x\n"),
		"packed quotes":       []byte(strings.Repeat(">", 80000) + "x\n"),
		"ordered lists":       []byte(strings.Repeat("1. ", 30000) + "x\n"),
		"indented list items": []byte(indented.String()),
	}
}

func astDepth(n ast.Node) int {
	deepest := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		deepest = max(deepest, astDepth(c))
	}
	return deepest + 1
}

// The parser never sees more lists and quotes open on a line than fit
// before MaxMarkerColumn, whatever the file holds.
func TestBoundNestingCapsParserDepth(t *testing.T) {
	for name, src := range hostileNesting() {
		t.Run(name, func(t *testing.T) {
			bounded := boundNesting(src)
			if len(bounded) != len(src) {
				t.Fatalf("length %d, want %d", len(bounded), len(src))
			}
			doc := mdParser().Parse(text.NewReader(bounded), parser.WithContext(parser.NewContext()))
			if d := astDepth(doc); d > 2*(MaxMarkerColumn+2) {
				t.Errorf("parser nests %d deep", d)
			}
		})
	}
}

// A file that nests no deeper than MaxMarkerColumn is parsed as it is,
// and an entry after a hostile line is still found whole.
func TestBoundNestingKeepsEntries(t *testing.T) {
	normal := []byte("### [2025-01-01] Keep\n- **Decision:** x\n  - nested\n    - deeper\n      > quoted\n- **Status:** active\n\n* * * * * * * * * * * * * * * * * * * *\n")
	if got := boundNesting(normal); &got[0] != &normal[0] {
		t.Errorf("a normal file was copied or changed: %q", got)
	}
	src := append([]byte(strings.Repeat("- ", 40000)+"x\n\n"), normal...)
	entries := Parse("reference/decisions.md", src)
	if len(entries) != 1 || entries[0].Title != "Keep" || entries[0].Fields["Status"] != "active" ||
		!bytes.HasPrefix(src[entries[0].start:], []byte("### [2025-01-01] Keep")) {
		t.Errorf("entries = %+v", entries)
	}
}

func BenchmarkParseEntriesHostileNesting(b *testing.B) {
	for name, src := range hostileNesting() {
		b.Run(strings.ReplaceAll(name, " ", "-"), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for i := 0; i < b.N; i++ {
				Parse("reference/decisions.md", src)
			}
		})
	}
	line := strings.Repeat("- ", 12) + "x\n"
	src := []byte(strings.Repeat(line, MaxFileSize/len(line)))
	b.Run("4MB-of-12-deep-lines", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for i := 0; i < b.N; i++ {
			Parse("reference/decisions.md", src)
		}
	})
}
