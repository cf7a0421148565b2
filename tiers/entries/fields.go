package entries

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
)

// collectFields reads "- **Name:** value" list items of a block that belongs
// to e. Only the first level counts: nested items are part of a value's
// explanation, not fields of the entry.
func (p *entryParser) collectFields(e *Entry, block ast.Node) {
	list, ok := block.(*ast.List)
	if !ok {
		return
	}
	for item := list.FirstChild(); item != nil; item = item.NextSibling() {
		name, value, ok := p.field(item.FirstChild())
		if !ok {
			continue
		}
		if e.Fields == nil {
			e.Fields = map[string]string{}
		}
		if _, dup := e.Fields[name]; dup {
			e.Problem = joinProblems(e.Problem, fmt.Sprintf("field %s given twice", name))
			continue
		}
		e.Fields[name] = value
		if e.fieldSpans == nil {
			e.fieldSpans = map[string][2]int{}
		}
		e.fieldSpans[name] = p.blockSpan(item.FirstChild())
	}
}

// blockSpan is the byte range of a text block's lines: from the start of
// its first line (list marker included) past the newline of its last.
func (p *entryParser) blockSpan(block ast.Node) [2]int {
	lines := block.Lines()
	start := p.lineStart(lines.At(0).Start)
	end := p.lineEnd(lines.At(lines.Len()-1).Stop - 1)
	if end < len(p.src) {
		end++
	}
	return [2]int{start, end}
}

// field recognises a text block that starts with bold text naming a field:
// "**Status:** active" or "**Status**: active".
func (p *entryParser) field(block ast.Node) (name, value string, ok bool) {
	if block == nil || block.Lines().Len() == 0 {
		return "", "", false
	}
	em, ok := block.FirstChild().(*ast.Emphasis)
	if !ok || em.Level != 2 {
		return "", "", false
	}
	name = inlineText(em, p.src)
	first := block.Lines().At(0)
	rest := p.src[min(emphasisEnd(em, p.src), first.Stop):first.Stop]
	parts := []string{strings.TrimSpace(string(rest))}
	for i := 1; i < block.Lines().Len(); i++ {
		seg := block.Lines().At(i)
		parts = append(parts, strings.TrimSpace(string(seg.Value(p.src))))
	}
	value = strings.TrimSpace(strings.Join(parts, " "))
	switch {
	case strings.HasSuffix(name, ":"):
		name = strings.TrimSuffix(name, ":")
	case strings.HasPrefix(value, ":"):
		value = strings.TrimSpace(value[1:])
	default:
		return "", "", false
	}
	name = strings.TrimSpace(name)
	return name, value, name != ""
}

// emphasisEnd is the offset just past the closing delimiter of em.
func emphasisEnd(em *ast.Emphasis, src []byte) int {
	end := em.Pos()
	ast.Walk(em, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := n.(*ast.Text); ok && entering {
			end = max(end, t.Segment.Stop)
		}
		return ast.WalkContinue, nil
	})
	return min(end+em.Level, len(src))
}

// inlineText is the plain text of an inline node and its descendants.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// splitDatedTitle reads a decision heading "[YYYY-MM-DD] Title" into the
// text between the brackets and the title, exactly as the regular
// expression ^\[([^\]]*)\]\s*(.*)$ would (\s being [\t\n\f\r ] and "."
// anything but a newline), at a fraction of its cost: the heading of
// every decision is read on every ingest.
func splitDatedTitle(t string) (date, title string, ok bool) {
	if !strings.HasPrefix(t, "[") {
		return "", "", false
	}
	i := strings.IndexByte(t[1:], ']')
	if i < 0 {
		return "", "", false
	}
	title = strings.TrimLeft(t[2+i:], "\t\n\f\r ")
	if strings.IndexByte(title, '\n') >= 0 {
		return "", "", false
	}
	return t[1 : 1+i], title, true
}

// finish fills Text, Title and Date of a heading entry and says what is
// wrong with it, if anything.
func (p *entryParser) finish(e Entry) Entry {
	e.Text = strings.TrimRight(string(p.src[e.start:e.end]), " \t\r\n")
	problems := []string{e.Problem}
	if !utf8.ValidString(e.Text) {
		problems = append(problems, "invalid UTF-8")
	}
	if e.Title == "" {
		problems = append(problems, "empty heading")
	}
	problems = append(problems, p.dateProblem(&e))
	problems = append(problems, fieldProblems(e)...)
	e.Problem = joinProblems(problems...)
	return e
}

// dateProblem sets e.Date from the heading (decisions) or the kind's date
// field, and reports a missing or impossible date.
func (p *entryParser) dateProblem(e *Entry) string {
	var raw, where string
	switch {
	case e.Kind == KindDecision:
		if date, title, ok := splitDatedTitle(e.Title); ok {
			raw, where, e.Title = date, "heading", strings.TrimSpace(title)
			break
		}
		// zylos v0.7.1 dates a decision in a field: ### Title + **Date:**.
		var ok bool
		if raw, ok = e.Fields["Date"]; !ok {
			return "heading lacks a [YYYY-MM-DD] date"
		}
		where = "Date"
	case e.Kind.dateField() != "":
		where = e.Kind.dateField()
		var ok bool
		if raw, ok = e.Fields[where]; !ok && e.Kind == KindPreference {
			where = "Date observed" // zylos v0.7.1's preferences
			raw, ok = e.Fields[where]
		}
		if !ok {
			return "" // a missing field is reported with the other fields
		}
	default:
		return ""
	}
	if isPlaceholder(raw) {
		return "" // "(not yet)": no date yet, as zylos's templates leave it
	}
	d, err := time.Parse(DateLayout, strings.TrimSpace(raw))
	if err != nil {
		return fmt.Sprintf("invalid %s date %q (want YYYY-MM-DD)", where, raw)
	}
	e.Date = d
	return ""
}

// fieldProblems reports missing required fields and unknown statuses.
func fieldProblems(e Entry) []string {
	var out []string
	if len(e.Fields) == 0 && len(e.Kind.requiredFields()) > 0 {
		return []string{"no fields under the heading"}
	}
	for _, f := range e.Kind.requiredFields() {
		if f == "Value" && (hasField(e, "Date observed") || hasField(e, "Applies to")) {
			continue // a zylos v0.7.1 preference: the heading is the value
		}
		if _, ok := e.Fields[f]; !ok && !(f == "Status" && e.Status() != "") {
			out = append(out, "missing field "+f)
		}
	}
	known := e.Kind.knownStatuses()
	if s := e.Status(); s != "" && len(known) > 0 && !slices.Contains(known, s) {
		out = append(out, fmt.Sprintf("unknown status %q (want %s)", s, strings.Join(known, "|")))
	}
	return out
}

func hasField(e Entry, name string) bool {
	_, ok := e.Fields[name]
	return ok
}

// isPlaceholder reports a field value left to be filled in, written in
// parentheses: "(not yet)", "(to be filled when ...)".
func isPlaceholder(v string) bool {
	v = strings.TrimSpace(v)
	return len(v) >= 2 && v[0] == '(' && v[len(v)-1] == ')'
}

// joinProblems joins the non-empty problems into one line.
func joinProblems(problems ...string) string {
	var kept []string
	for _, p := range problems {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "; ")
}
