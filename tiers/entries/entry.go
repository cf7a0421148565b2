package entries

import (
	"bytes"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Entry is one unit of memory inside a tier file: a decision, a project, a
// preference, a session line, a core.md section or a generic reference
// entry. File and Line (1-based) cite it as "File#LLine".
type Entry struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Kind  Kind   `json:"kind"`
	Title string `json:"title"`
	// Date is the entry's date (heading, Updated/Added field or session
	// header plus HH:MM), zero when it has none or it is invalid.
	Date   time.Time         `json:"date,omitzero"`
	Fields map[string]string `json:"fields,omitempty"`
	// Text is the entry's markdown as written (heading included); for a
	// session line, the text after "**HH:MM** - ".
	Text string `json:"text"`
	// Section is the enclosing higher-level heading, such as "Active" or
	// "Completed" in projects.md.
	Section string `json:"section,omitempty"`
	// Problem is empty for a well-formed entry, else why it is malformed.
	Problem string `json:"problem,omitempty"`

	start, end int // byte range [start, end) of the entry in its file
	// fieldSpans holds the byte range of each field's text lines (list
	// marker to the end of its last line, newline included).
	fieldSpans map[string][2]int
}

// Span is the byte range [start, end) of a heading entry in its file: from
// its heading line to the next heading of the same or a higher level, so
// the blank lines after it are included. Cutting every entry's span and
// keeping the rest accounts for every byte of the file.
func (e Entry) Span() (start, end int) { return e.start, e.end }

// FieldSpan is the byte range of field name's lines, from the start of
// its list item's first line through the newline of its value's last
// line; nested lists under the item are not part of it.
func (e Entry) FieldSpan(name string) (start, end int, ok bool) {
	s, ok := e.fieldSpans[name]
	return s[0], s[1], ok
}

// Status is the entry's status word in lower case ("superseded by X" reads
// as "superseded"); a project without a Status field takes it from its
// "## Active" / "## Completed" section.
func (e Entry) Status() string {
	if v, ok := e.Fields["Status"]; ok {
		word, _, _ := strings.Cut(strings.TrimSpace(v), " ")
		return strings.ToLower(strings.Trim(word, "*_`.,;"))
	}
	if e.Kind == KindProject {
		switch s := strings.ToLower(e.Section); s {
		case "active", "completed":
			return s
		}
	}
	return ""
}

// mdParser is shared: a goldmark parser keeps no state between Parse calls.
// It has every CommonMark block parser (so code blocks, quotes and HTML
// blocks are never mistaken for entries) but only the inline parsers the
// entry formats need: code spans (so `**x**` in code is not bold) and
// emphasis. Links are left as text, which saves a tenth of the
// allocations of a parse.
// It is built on first use: commands that parse no tier file skip it.
var mdParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(
			util.Prioritized(parser.NewCodeSpanParser(), 100),
			util.Prioritized(parser.NewEmphasisParser(), 500),
		),
	)
})

// Parse parses src, the content of the tier file name, into entries
// in source order. The entry format follows from the file name (see
// KindOf). It never fails: what does not fit the format is either ignored
// (free text) or returned with Problem set.
func Parse(name string, src []byte) []Entry {
	kind := KindOf(name)
	if kind == kindNone {
		return nil
	}
	p := &entryParser{file: name, src: src, kind: kind, lines: lineStarts(src)}
	if kind == KindSessionLine {
		return p.sessionLines(parseMarkdown(bounded(src)))
	}
	return p.allHeadingEntries(bounded(src))
}

// parseMarkdown parses a whole source with the shared parser.
func parseMarkdown(src []byte) ast.Node {
	return mdParser().Parse(text.NewReader(src), parser.WithContext(parser.NewContext()))
}

type entryParser struct {
	file  string
	src   []byte
	kind  Kind
	lines []int // byte offset where each line starts
}

// headingEntries cuts the document at the headings of the entry level:
// each entry runs from its heading's line to the next heading of the same
// or a higher level. Higher headings name the section; section is the
// one the blocks start in, end where the last entry ends.
func (p *entryParser) headingEntries(blocks []ast.Node, section string, end int) []Entry {
	out, _ := p.headingEntriesIn(blocks, section, end)
	return out
}

// headingEntriesIn is headingEntries answering also the section the
// blocks end in.
func (p *entryParser) headingEntriesIn(blocks []ast.Node, section string, end int) ([]Entry, string) {
	level := p.kind.entryLevel()
	var out []Entry
	var cur *Entry
	closeEntry := func(end int) {
		if cur != nil {
			cur.end = end
			out = append(out, p.finish(*cur))
			cur = nil
		}
	}
	for _, n := range blocks {
		h, ok := n.(*ast.Heading)
		if !ok || h.Level > level {
			if cur != nil {
				p.collectFields(cur, n)
			}
			continue
		}
		start := p.lineStart(n.Pos())
		closeEntry(start)
		if h.Level < level {
			section = p.headingText(h)
			continue
		}
		cur = &Entry{
			File: p.file, Line: p.lineOf(start), Kind: p.kind,
			Title: p.headingText(h), Section: section, start: start,
		}
	}
	closeEntry(end)
	return out, section
}

// headingText is the heading's inline source, so markdown in a title
// (`code`, links) stays as written.
func (p *entryParser) headingText(h *ast.Heading) string {
	var b strings.Builder
	for i := 0; i < h.Lines().Len(); i++ {
		seg := h.Lines().At(i)
		b.Write(seg.Value(p.src))
	}
	return strings.TrimSpace(b.String())
}

// lineStarts indexes the start of every line; "\r\n" ends a line too.
func lineStarts(src []byte) []int {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineOf is the 1-based line holding byte offset pos.
func (p *entryParser) lineOf(pos int) int {
	return sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > pos })
}

// lineStart is the offset of the start of the line holding pos.
func (p *entryParser) lineStart(pos int) int {
	if pos < 0 {
		return 0
	}
	return p.lines[p.lineOf(pos)-1]
}

// lineEnd is the offset just past the line holding pos, before its newline.
func (p *entryParser) lineEnd(pos int) int {
	i := p.lineOf(pos)
	if i < len(p.lines) {
		return p.lines[i] - 1
	}
	return len(p.src)
}
