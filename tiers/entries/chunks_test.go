package entries

import (
	"fmt"
	"math/rand"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
)

// parseCut parses src cut at cuts (line starts), as allHeadingEntries
// does for a large file; false when the cuts were refused.
func parseCut(name string, src []byte, cuts []int) ([]Entry, bool) {
	p := &entryParser{file: name, src: src, kind: KindOf(name), lines: lineStarts(src)}
	return p.chunkedEntries(boundNesting(src), cuts)
}

// wholeParse parses src in one piece.
func wholeParse(name string, src []byte) []Entry {
	p := &entryParser{file: name, src: src, kind: KindOf(name), lines: lineStarts(src)}
	var blocks []ast.Node
	for n := parseMarkdown(boundNesting(src)).FirstChild(); n != nil; n = n.NextSibling() {
		blocks = append(blocks, n)
	}
	return p.headingEntries(blocks, "", len(src))
}

// headingCuts lists the line starts of src that begin with marker.
func headingCuts(src []byte, marker string) []int {
	var cuts []int
	for _, at := range lineStarts(src) {
		if at > 0 && hasPrefixAt(src, at, marker) {
			cuts = append(cuts, at)
		}
	}
	return cuts
}

// checkCuts compares the parse of src cut at each subset of cuts tried
// (every single cut, then all of them) with the whole parse, and answers
// how many cut parses were accepted.
func checkCuts(t *testing.T, name string, src []byte, cuts []int) int {
	t.Helper()
	want := wholeParse(name, src)
	accepted := 0
	try := func(cs []int) {
		got, ok := parseCut(name, src, cs)
		if !ok {
			return
		}
		accepted++
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s cut at %v differs from the whole parse:\n%q\ngot  %+v\nwant %+v", name, cs, src, got, want)
		}
	}
	for _, c := range cuts {
		try([]int{c})
	}
	if len(cuts) > 1 {
		try(cuts)
	}
	return accepted
}

// checkAlone holds that each entry of src, parsed alone with
// ParseAt from its span and section, reads as in the whole parse.
// Only an entry ended by a setext heading may be refused.
func checkAlone(t *testing.T, name string, src []byte) {
	t.Helper()
	for _, e := range wholeParse(name, src) {
		got, ok := ParseAt(name, src, e.start, e.end, e.Section)
		if !ok && e.end < len(src) && !atxHeadingLine(src[e.end:]) {
			continue // ended by a setext heading: refused, as documented
		}
		if !ok || len(got) != 1 || !reflect.DeepEqual(got[0], e) {
			t.Fatalf("%s: entry %q [%d,%d) alone: ok %v, got %+v\nwant %+v\nin %q", name, e.Title, e.start, e.end, ok, got, e, src)
		}
	}
}

// atxHeadingLine reports whether line starts with an ATX heading: up to
// three spaces, one to six #, then a space, a tab or the line's end. A
// line such as "#0000" is not one, and may be the text of a setext
// heading.
func atxHeadingLine(line []byte) bool {
	i := 0
	for i < 3 && i < len(line) && line[i] == ' ' {
		i++
	}
	n := 0
	for i < len(line) && line[i] == '#' {
		i++
		n++
	}
	return n >= 1 && n <= 6 && (i == len(line) || line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r')
}

// chunkPieces are the pieces generated files are made of: entries and
// every construct that can hold a heading line or leave a block open
// across one.
var chunkPieces = []string{
	"### [2026-03-01] Decision %d\n- **Decision:** use option %d\n- **Status:** active\n\n",
	"### Entry %d\n<!-- id: entry-%d -->\n- **Status:** active\n- **Updated:** 2026-03-01\n\n",
	"### [2026-03-01] Crlf %d\r\n- **Decision:** x %d\r\n- **Status:** active\r\n\r\n",
	"## Section %d\n\nProse %d with *emphasis* and `code`.\n\n",
	"```\n### fenced %d\n",
	"```\n\n",
	"```\n## fenced section %d\n```\n",
	"# Top %d #\n\n",
	"~~~ go\n### tilde %d %d\n~~~\n",
	"<div>\n### in html %d\n",
	"</div>\n\n",
	"<!-- open comment %d\n",
	"### closes -->\n",
	"-->\n",
	"Setext %d\n===\n\n",
	"Para %d\n---\n",
	"- item %d\n  ### nested heading %d\n",
	"> quote %d\n### after quote %d\n",
	"    ### indented code %d\n",
	"### 日本語の見出し %d\n- **Decision:** ünïcödé %d\n- **Status:** active\n",
	"**bold %d\n### split emphasis** %d\n",
	"`code %d\n### split code` %d\n",
	"<script>\n### in script %d\n</script>\n",
	"### \n",
	"###\n",
	"### trailing # %d ###\n- **Status:** active\n",
	"1. item %d\n\n   ### in item %d\n",
}

// genFile builds a file of n pieces drawn by rng.
func genFile(rng *rand.Rand, n int) []byte {
	var b strings.Builder
	b.WriteString("# Decisions Log\n\n")
	for i := 0; i < n; i++ {
		piece := chunkPieces[rng.Intn(len(chunkPieces))]
		if rng.Intn(3) > 0 {
			piece = chunkPieces[rng.Intn(3)]
		}
		switch strings.Count(piece, "%d") {
		case 0:
			b.WriteString(piece)
		case 1:
			fmt.Fprintf(&b, piece, i)
		default:
			fmt.Fprintf(&b, piece, i, i)
		}
	}
	return []byte(b.String())
}

// TestChunkedParseMatchesWhole holds that a file parsed in chunks gives
// exactly the entries of one whole parse, whatever is open at a cut.
func TestChunkedParseMatchesWhole(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	files := []string{"reference/decisions.md", "reference/projects.md", "reference/preferences.md", "reference/ideas.md", "core.md"}
	accepted := 0
	for round := 0; round < 300; round++ {
		src := genFile(rng, 5+rng.Intn(40))
		for _, name := range files {
			marker := strings.Repeat("#", KindOf(name).entryLevel()) + " "
			accepted += checkCuts(t, name, src, headingCuts(src, marker))
			checkAlone(t, name, src)
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d cut parses were accepted: the test proves little", accepted)
	}
}

// TestChunkedParseLargeFile holds that a large file is parsed in chunks
// (when there is more than one processor) to the same entries.
func TestChunkedParseLargeFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Decisions Log\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "\n### [2026-03-01] Decision number %d\n- **Decision:** use option %d\n- **Context:** benchmark\n- **Status:** active\n", i, i)
	}
	src := []byte(b.String())
	p := &entryParser{file: "reference/decisions.md", src: src, kind: KindDecision, lines: lineStarts(src)}
	cuts := headingCuts(src, "### ")
	got, ok := parseCut(p.file, src, []int{cuts[100], cuts[500], cuts[900]})
	if !ok {
		t.Fatal("cuts at entry headings refused")
	}
	if want := wholeParse(p.file, src); !reflect.DeepEqual(got, want) {
		t.Fatal("chunked parse differs from the whole parse")
	}
	if !reflect.DeepEqual(Parse(p.file, src), got) {
		t.Fatal("Parse differs from the whole parse")
	}
}

// FuzzChunkedParse holds the same for any file and any cut at a line
// starting with "### ".
func FuzzChunkedParse(f *testing.F) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 20; i++ {
		f.Add(genFile(rng, 3+rng.Intn(10)), uint16(rng.Intn(1000)))
	}
	f.Add([]byte("### a\n```\n### b\n```\n### c\n"), uint16(1))
	f.Fuzz(func(t *testing.T, src []byte, pick uint16) {
		cuts := headingCuts(src, "### ")
		if len(cuts) == 0 {
			return
		}
		for _, name := range []string{"reference/decisions.md", "reference/ideas.md"} {
			want := wholeParse(name, src)
			c := cuts[int(pick)%len(cuts)]
			if got, ok := parseCut(name, src, []int{c}); ok && !reflect.DeepEqual(got, want) {
				t.Fatalf("%s cut at %d differs from the whole parse:\n%q", name, c, src)
			}
			checkAlone(t, name, src)
		}
	})
}

// FuzzSplitDatedTitle holds that splitDatedTitle reads a heading exactly
// as the regular expression it stands for.
func FuzzSplitDatedTitle(f *testing.F) {
	for _, s := range []string{"[2026-03-01] Title", "[2026-03-01]Title", "[] x", "[a]\n b", "[a] b\nc", "[a\nb] c", "x [a] b", "[a", "[\xff] \xfe", "[a] \t\r\f\n"} {
		f.Add(s)
	}
	re := regexp.MustCompile(`^\[([^\]]*)\]\s*(.*)$`)
	f.Fuzz(func(t *testing.T, s string) {
		date, title, ok := splitDatedTitle(s)
		m := re.FindStringSubmatch(s)
		if ok != (m != nil) || ok && (date != m[1] || title != m[2]) {
			t.Fatalf("%q: got %q %q %v, the expression %q", s, date, title, ok, m)
		}
	})
}
