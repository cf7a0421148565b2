package entries

import (
	"runtime"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// chunkSize is the least number of bytes a file must have per chunk for
// allHeadingEntries to parse it in chunks side by side: below it, starting a
// goroutine costs more than it saves.
const chunkSize = 32 << 10

// maxChunks bounds the chunks of one parse.
const maxChunks = 4

// allHeadingEntries parses src (bounded by boundNesting) and cuts it into
// entries. A large file is cut into chunks at entry heading lines, each
// parsed and cut into entries side by side, when that is proven to give
// the same entries as one parse of the whole file; otherwise, and for a
// small file, it is parsed whole.
//
// Why a chunk parses as the whole file would: the parser reads blocks line
// by line, each line's fate decided by the blocks open before it and the
// line itself, never by a later line, and the only inline parsers (code
// spans, emphasis) work inside one block; no link reference definitions or
// other document-wide state exist in this parser. So the first chunk,
// parsed through the line that starts the second, is the whole parse up to
// that line; when that line comes out a top-level ATX heading, every
// block open before it was closed by it and nothing is open after it, which
// is exactly the state a fresh parse is in after reading the same heading
// line first. The next chunk, parsed from that line, therefore continues
// the whole parse block for block. The heading is taken from the chunk
// that starts with it. A boundary whose line does not come out a top-level
// heading (it was inside a fence, an HTML block, a list item) makes the
// whole file be parsed at once.
//
// The entries of a chunk also depend on the section it starts in, known
// only once the chunk before it is cut: each chunk is cut with the section
// guessed from the last higher-level heading line before it, and cut again
// when the guess proves wrong.
func (p *entryParser) allHeadingEntries(bounded []byte) []Entry {
	if cuts := p.chunkCuts(); len(cuts) > 0 {
		if out, ok := p.chunkedEntries(bounded, cuts); ok {
			return out
		}
	}
	var blocks []ast.Node
	for n := parseMarkdown(bounded).FirstChild(); n != nil; n = n.NextSibling() {
		blocks = append(blocks, n)
	}
	return p.headingEntries(blocks, "", len(p.src))
}

// chunkCuts are the line starts where the file is cut: the first line at
// or after each equal share of the file that starts with an entry
// heading's marker ("### "). None for a small file or a single processor.
func (p *entryParser) chunkCuts() []int {
	n := min(len(p.src)/chunkSize, runtime.GOMAXPROCS(0), maxChunks)
	if n < 2 {
		return nil
	}
	marker := strings.Repeat("#", p.kind.entryLevel()) + " "
	var cuts []int
	li := 0
	for j := 1; j < n; j++ {
		target := j * len(p.src) / n
		for li < len(p.lines) && (p.lines[li] < target || !hasPrefixAt(p.src, p.lines[li], marker)) {
			li++
		}
		if li == len(p.lines) {
			break
		}
		cuts = append(cuts, p.lines[li])
		li++
	}
	return cuts
}

func hasPrefixAt(src []byte, at int, prefix string) bool {
	return len(src)-at >= len(prefix) && string(src[at:at+len(prefix)]) == prefix
}

// chunk is one part of a file cut by chunkedEntries.
type chunk struct {
	start, end   int // the chunk's bytes in the file
	guess, after string
	blocks       []ast.Node
	entries      []Entry
	ok           bool
}

// chunkedEntries parses the chunks [0, cuts[0]), [cuts[0], cuts[1]), ...
// side by side, each through the first line of the next, and answers
// their entries in order, or false when a cut line did not come out a
// top-level heading of the chunk before it (or the first block of its
// own).
func (p *entryParser) chunkedEntries(bounded []byte, cuts []int) ([]Entry, bool) {
	starts := append([]int{0}, cuts...)
	cs := make([]chunk, len(starts))
	var wg sync.WaitGroup
	for i := range cs {
		c := &cs[i]
		c.start, c.end = starts[i], len(p.src)
		if i+1 < len(starts) {
			c.end = starts[i+1]
		}
		if i > 0 {
			c.guess = p.sectionBefore(c.start)
		}
		cut := func() { p.cutChunk(bounded, c, i > 0) }
		if i == len(cs)-1 {
			cut()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cut()
		}()
	}
	wg.Wait()
	var out []Entry
	section := ""
	for i := range cs {
		c := &cs[i]
		if !c.ok {
			return nil, false
		}
		if c.guess != section {
			c.entries, c.after = p.headingEntriesIn(c.blocks, section, c.end)
		}
		section = c.after
		out = append(out, c.entries...)
	}
	return out, true
}

// cutChunk parses c and cuts it into entries with its guessed section;
// c.ok says the parse is proven (see blocksBetween; the first chunk need
// not start with a heading).
func (p *entryParser) cutChunk(bounded []byte, c *chunk, notFirst bool) {
	if c.blocks, c.ok = p.blocksBetween(bounded, c.start, c.end, notFirst); c.ok {
		c.entries, c.after = p.headingEntriesIn(c.blocks, c.guess, c.end)
	}
}

// blocksBetween parses bounded (src bounded by boundNesting) from start
// through the line at end, and answers the top-level blocks before end.
// It answers false unless the line at start (when headed) and the line at
// end (when inside src) come out top-level headings: then the blocks are
// those a parse of the whole file finds there.
func (p *entryParser) blocksBetween(bounded []byte, start, end int, headed bool) ([]ast.Node, bool) {
	more, stop := end < len(p.src), len(p.src)
	if more {
		stop = min(p.lineEnd(end)+1, len(p.src))
	}
	doc := parseFrom(bounded[:stop], start)
	head, last := doc.FirstChild(), doc.LastChild()
	if headed && !p.headingAt(head, start) || more && (head == last || !p.headingAt(last, end)) {
		return nil, false
	}
	var blocks []ast.Node
	for n := head; n != nil && !(more && n == last); n = n.NextSibling() {
		blocks = append(blocks, n)
	}
	return blocks, true
}

// sectionBefore guesses the section at pos: the text of the last line
// before it that looks like a heading of a higher level than entries.
func (p *entryParser) sectionBefore(pos int) string {
	level := p.kind.entryLevel()
	for li := p.lineOf(pos) - 2; li >= 0; li-- {
		line := p.src[p.lines[li]:p.lineEnd(p.lines[li])]
		k := 0
		for k < len(line) && line[k] == '#' {
			k++
		}
		if k > 0 && k < level && (k == len(line) || line[k] == ' ' || line[k] == '\t') {
			return strings.TrimSpace(string(line[k:]))
		}
	}
	return ""
}

// headingAt reports whether n is an ATX heading on the line starting at
// pos.
func (p *entryParser) headingAt(n ast.Node, pos int) bool {
	_, ok := n.(*ast.Heading)
	return ok && p.lineStart(n.Pos()) == pos
}

// parseFrom parses src from the line starting at pos, as a fresh
// document; segments keep their offsets in src.
func parseFrom(src []byte, pos int) ast.Node {
	r := text.NewReader(src)
	for {
		_, seg := r.Position()
		if seg.Start >= pos || seg.Start >= len(src) {
			break
		}
		r.AdvanceLine()
	}
	return mdParser().Parse(r, parser.WithContext(parser.NewContext()))
}

// ParseAt parses the entries of src[start:end] alone: start must be
// the line of an entry heading and end the line of the next heading of
// the entry level or higher (or the end of src), both as a parse of the
// whole of src read them, and section the section start is in. Then, as
// allHeadingEntries explains, the entries are those a parse of the whole file
// finds there. It answers false when the lines at start and end do not
// come out top-level headings, which proves the caller's offsets wrong,
// and for an entry ended by a setext heading (whose underline is on a
// later line).
func ParseAt(name string, src []byte, start, end int, section string) ([]Entry, bool) {
	kind := KindOf(name)
	if kind.entryLevel() == 0 || start < 0 || start >= end || end > len(src) || (start > 0 && src[start-1] != '\n') ||
		(end < len(src) && src[end-1] != '\n') {
		return nil, false
	}
	p := &entryParser{file: name, src: src, kind: kind, lines: lineStarts(src)}
	stop := len(src)
	if end < len(src) {
		stop = min(p.lineEnd(end)+1, len(src))
	}
	blocks, ok := p.blocksBetween(bounded(src[:stop]), start, end, true)
	if !ok {
		return nil, false
	}
	return p.headingEntries(blocks, section, end), true
}
