package bridge

import (
	"bytes"
	"strings"

	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// block renders r as a new entry, lines ended by nl, with no newline
// after its last line.
func (s *spec) block(r *records.Record, nl string) string {
	p := s.recordProjection(r)
	lines := []string{s.heading(p), entries.IDComment(r.ID)}
	if p.team != "" {
		lines = append(lines, p.team)
	}
	for i, f := range s.fields {
		if p.fields[i] != "" || f.required {
			lines = append(lines, fieldLine("- ", f.name, p.fields[i]))
		}
	}
	if p.body != "" {
		lines = append(lines, p.body)
	}
	return strings.ReplaceAll(strings.Join(lines, "\n"), "\n", nl)
}

func (s *spec) heading(p projection) string {
	title := p.title
	// A title ending in '#' would lose it as a closing sequence of the
	// ATX heading; a closing sequence of our own keeps it.
	if strings.HasSuffix(title, "#") {
		title += " #"
	}
	if s.kind == entries.KindDecision {
		return "### [" + p.date + "] " + title
	}
	return "### " + title
}

func fieldLine(marker, name, value string) string {
	if value == "" {
		return marker + "**" + name + ":**"
	}
	return marker + "**" + name + ":** " + value
}

// shown is the projection of r's entry as the entry parser reads it back:
// what markdown does to a value (a closing '#', emphasis markers) is
// accounted for by parsing the rendered block. Its team comment is the
// record's own, whatever the parse reads: a rendering that reads back
// another (a note's text with a line of its own that reads as a team
// comment) does not show the record, and the splice proof refuses it.
func (s *spec) shown(r *records.Record) projection {
	name := s.file
	es := entries.Parse(name, []byte(s.block(r, "\n")))
	if len(es) != 1 {
		return s.recordProjection(r)
	}
	p := s.entryProjection(es[0])
	p.team, p.private = recordTeam(r)
	return p
}

// same reports whether entry e says what record r says (its team
// comment's shown attributes aside: see projection.said). The plain
// comparison settles almost every entry; only a difference is checked
// against the parsed rendering.
func (s *spec) same(e entries.Entry, r *records.Record) bool {
	have := s.entryProjection(e).said()
	return have == s.recordProjection(r).said() || have == s.shown(r).said()
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// applyEdits applies edits sorted by start (ties keep their order).
func applyEdits(src []byte, edits []edit) []byte {
	var b bytes.Buffer
	b.Grow(len(src) + 256)
	prev := 0
	for _, e := range edits {
		b.Write(src[prev:e.start])
		b.WriteString(e.text)
		prev = e.end
	}
	b.Write(src[prev:])
	return b.Bytes()
}

// lineEnding is the line ending src uses: "\r\n" when its first line
// ends so, else "\n".
func lineEnding(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// lineAfter is the offset just past the newline of the line holding pos
// (len(src) on the last line).
func lineAfter(src []byte, pos int) int {
	if i := bytes.IndexByte(src[pos:], '\n'); i >= 0 {
		return pos + i + 1
	}
	return len(src)
}

// contentEnd is the end of the line [start, end) without its newline.
func contentEnd(src []byte, start, end int) int {
	for end > start && (src[end-1] == '\n' || src[end-1] == '\r') {
		end--
	}
	return end
}

// insertLine inserts line at pos, which is a line start or the end of
// a file without a final newline.
func insertLine(src []byte, pos int, line, nl string) edit {
	if pos > 0 && src[pos-1] != '\n' {
		return edit{pos, pos, nl + line}
	}
	return edit{pos, pos, line + nl}
}

// entryEdits are the edits that make entry e show record r: the heading,
// the id comment, the team comment and each field that differs are
// rewritten in place (a field's list marker and indentation kept); a
// missing team comment is added after the id comment (and dropped when
// the record's team has nothing to show), missing fields after the last
// field. Every other byte of the entry stays.
func (s *spec) entryEdits(src []byte, e entry, r *records.Record) []edit {
	want, have, text := s.shown(r), s.entryProjection(e.Entry), s.recordProjection(r)
	nl := lineEnding(src[e.start:e.end])
	var out []edit
	headEnd := lineAfter(src, e.start)
	if have.title != want.title || have.date != want.date {
		out = append(out, edit{e.start, contentEnd(src, e.start, headEnd), s.heading(text)})
	}
	after := headEnd
	switch {
	case e.id == "":
		out = append(out, insertLine(src, headEnd, entries.IDComment(r.ID), nl))
	case e.id != r.ID:
		out = append(out, edit{e.idLine[0], contentEnd(src, e.idLine[0], e.idLine[1]), entries.IDComment(r.ID)})
	}
	if have.team != want.team {
		out = append(out, teamEdit(src, e, headEnd, text.team, nl))
	}
	if e.id != "" && e.idLine[1] > after {
		after = e.idLine[1]
	}
	if e.hasTeamLine() && e.teamLine[1] > after {
		after = e.teamLine[1]
	}
	for _, f := range s.fields {
		if _, end, ok := e.FieldSpan(f.name); ok && end > after {
			after = end
		}
	}
	for i, f := range s.fields {
		if have.fields[i] == want.fields[i] {
			continue
		}
		start, end, ok := e.FieldSpan(f.name)
		if !ok {
			out = append(out, insertLine(src, after, fieldLine("- ", f.name, text.fields[i]), nl))
			continue
		}
		first := src[start:contentEnd(src, start, lineAfter(src, start))]
		marker := "- "
		if i := bytes.Index(first, []byte("**")); i >= 0 {
			marker = string(first[:i])
		}
		out = append(out, edit{start, contentEnd(src, start, end), fieldLine(marker, f.name, text.fields[i])})
	}
	if have.body != want.body {
		out = bodyEdit(src, e, r, text, after, nl, out)
	}
	sortEdits(out)
	return out
}

// teamEdit makes the entry's team comment line: line rewrites the one
// there (indentation dropped, as for the id comment), "" takes it out; an
// entry without one gets it after its id comment, or after its heading
// (headEnd) when the id comment is being added there too.
func teamEdit(src []byte, e entry, headEnd int, line, nl string) edit {
	switch {
	case e.hasTeamLine() && line == "":
		return edit{e.teamLine[0], e.teamLine[1], ""}
	case e.hasTeamLine():
		return edit{e.teamLine[0], contentEnd(src, e.teamLine[0], e.teamLine[1]), line}
	case e.id != "":
		return insertLine(src, e.idLine[1], line, nl)
	}
	return insertLine(src, headEnd, line, nl)
}

// bodyEdit rewrites a note's text: the lines from its first to its last
// line that is neither blank nor the id or team comment. The comments
// between them are written again at the top of the new text (dropping
// their own edits from out); blank lines around the text stay.
func bodyEdit(src []byte, e entry, r *records.Record, text projection, after int, nl string, out []edit) []edit {
	first, last := -1, -1
	for pos := lineAfter(src, e.start); pos < e.end; pos = lineAfter(src, pos) {
		line := src[pos:contentEnd(src, pos, lineAfter(src, pos))]
		if (e.id != "" && pos == e.idLine[0]) || (e.hasTeamLine() && pos == e.teamLine[0]) || len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if first < 0 {
			first = pos
		}
		last = contentEnd(src, pos, lineAfter(src, pos))
	}
	body := strings.ReplaceAll(text.body, "\n", nl)
	if first < 0 {
		if body == "" {
			return out
		}
		return append(out, insertLine(src, after, body, nl))
	}
	inside := func(pos int) bool { return pos > first && pos < last }
	idInside := e.id != "" && inside(e.idLine[0])
	// A team comment to add goes after the id comment: inside too when
	// that is.
	teamInside := e.hasTeamLine() && inside(e.teamLine[0]) || !e.hasTeamLine() && idInside
	var head []string
	if idInside {
		head = append(head, entries.IDComment(r.ID))
	}
	if teamInside && text.team != "" {
		head = append(head, text.team)
	}
	if idInside || teamInside {
		kept := out[:0]
		for _, ed := range out {
			if !inside(ed.start) {
				kept = append(kept, ed)
			}
		}
		out = kept
	}
	if len(head) > 0 {
		body = strings.Join(append(head, body), nl)
	}
	if body == "" {
		// Drop the lines with their line end; the blank lines stay.
		return append(out, edit{first, lineAfter(src, last), ""})
	}
	return append(out, edit{first, last, body})
}

func sortEdits(edits []edit) {
	for i := 1; i < len(edits); i++ {
		for j := i; j > 0 && edits[j].start < edits[j-1].start; j-- {
			edits[j], edits[j-1] = edits[j-1], edits[j]
		}
	}
}
