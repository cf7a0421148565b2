package dashboard

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestCostlyMarkdownIsShownAsText: text whose render would take time
// growing with the square of its size is shown as its source, with a
// note; large text of ordinary paragraphs is still rendered.
func TestCostlyMarkdownIsShownAsText(t *testing.T) {
	for name, src := range map[string]string{
		"emphasis delimiters":   strings.Repeat("*a_ ", 16<<10),
		"unclosed images":       strings.Repeat("![a](", 13<<10),
		"unclosed links, lines": strings.Repeat("[a](b\n", 11<<10),
		"too large":             strings.Repeat("a paragraph of words.\n\n", 7<<10),
	} {
		got := string(renderMarkdown([]byte(src)))
		if !strings.Contains(got, `<p class="note">Shown as text, not rendered: `) || !strings.Contains(got, `<pre class="source">`+src[:40]) {
			t.Errorf("%s (%d bytes): rendered\n%s", name, len(src), clip(got, 300))
		}
	}
	ordinary := strings.Repeat("## A heading\n\nSome *emphasis* and a [link](https://example.com).\n\n", 1000)
	if got := string(renderMarkdown([]byte(ordinary))); strings.Contains(got, "Shown as text") || strings.Count(got, "<em>emphasis</em>") != 1000 {
		t.Errorf("ordinary text of %d bytes was not rendered:\n%s", len(ordinary), clip(got, 300))
	}
}

// TestAPathologicalCoreShowsItsSource: /core of a core.md made of a
// pattern goldmark parses in quadratic time answers with the text.
func TestAPathologicalCoreShowsItsSource(t *testing.T) {
	l := testHome(t, false)
	testutil.WriteFile(t, l.CoreFile(), "# Core\n\n"+strings.Repeat("*a_ ", 16<<10)+"\n")
	mustContain(t, serve(t, l, nil).get(t, "/core"), "Shown as text, not rendered", "<pre class=\"source\"># Core")
}

// TestAPathologicalNoteShowsItsSource: the entry page of a 280 KB note
// made of a quadratic pattern (as memory_save may store one) answers with
// the text, and its file is parsed into entries all the same.
func TestAPathologicalNoteShowsItsSource(t *testing.T) {
	l := testHome(t, false)
	testutil.WriteFile(t, filepath.Join(l.ReferenceDir(), "notes.md"), "# Notes\n\n### A big note\n"+strings.Repeat("*a_ ", 70<<10)+"\n")
	a := serve(t, l, nil).get(t, "/entry?path=memory/reference/notes.md&line=3")
	mustContain(t, a, "A big note", "Shown as text, not rendered")
}
