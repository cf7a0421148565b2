package entries

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"

	"github.com/zylos/zylos-memory/internal/lazy"
)

var (
	// sessionHeader is the rotation header "# Session Log: YYYY-MM-DD".
	sessionHeader = lazy.Regexp(`^Session Log:\s*(\S+)`)
	// clockLike tells a timestamp that may be impossible (25:99) from other
	// bold text at the start of a line.
	clockLike = lazy.Regexp(`^\d{1,2}:\d{2}$`)
)

// sessionLines finds every "**HH:MM** - text" line of a session log, in
// paragraphs and list items alike; code blocks are not looked into.
func (p *entryParser) sessionLines(doc ast.Node) []Entry {
	day, dayProblem := p.sessionDay(doc)
	var out []Entry
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Type() != ast.TypeBlock || n.Lines().Len() == 0 {
			return ast.WalkContinue, nil
		}
		if _, ok := n.(*ast.Paragraph); !ok {
			if _, ok := n.(*ast.TextBlock); !ok {
				return ast.WalkContinue, nil
			}
		}
		lines, next := n.Lines(), 0
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			em, ok := c.(*ast.Emphasis)
			if !ok || em.Level != 2 {
				continue
			}
			// Inlines come in source order, so one pass over the block's
			// lines tells which emphasis starts a line.
			for next < lines.Len() && lines.At(next).Start < em.Pos() {
				next++
			}
			if next < lines.Len() && lines.At(next).Start == em.Pos() {
				if e, ok := p.sessionLine(em, day, dayProblem); ok {
					out = append(out, e)
				}
			}
		}
		return ast.WalkSkipChildren, nil
	})
	return out
}

// sessionDay is the log's date: its "# Session Log:" header, else the
// YYYY-MM-DD of its file name; zero for current.md without a header.
func (p *entryParser) sessionDay(doc ast.Node) (time.Time, string) {
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Level != 1 {
			continue
		}
		if m := sessionHeader().FindStringSubmatch(p.headingText(h)); m != nil {
			d, err := time.Parse(DateLayout, m[1])
			if err != nil {
				return time.Time{}, fmt.Sprintf("invalid session header date %q", m[1])
			}
			return d, ""
		}
	}
	if m := sessionName().FindStringSubmatch(filepath.Base(p.file)); m != nil {
		if d, err := time.Parse(DateLayout, m[1]); err == nil {
			return d, ""
		}
	}
	return time.Time{}, ""
}

// sessionLine turns a line starting with bold text into an entry when the
// bold text is a time; ok is false for other bold text ("**Note:** ...").
func (p *entryParser) sessionLine(em *ast.Emphasis, day time.Time, dayProblem string) (Entry, bool) {
	clock := strings.TrimSpace(inlineText(em, p.src))
	if !clockLike().MatchString(clock) {
		return Entry{}, false
	}
	start, end := p.lineStart(em.Pos()), p.lineEnd(em.Pos())
	rest := strings.TrimSpace(strings.TrimRight(string(p.src[min(emphasisEnd(em, p.src), end):end]), "\r"))
	e := Entry{
		File: p.file, Line: p.lineOf(start), Kind: KindSessionLine,
		Fields: map[string]string{"Time": clock},
		start:  start, end: min(end+1, len(p.src)),
	}
	problems := []string{dayProblem}
	text, dashed := strings.CutPrefix(rest, "-")
	if !dashed {
		problems = append(problems, `missing " - " after the time`)
	}
	e.Text = strings.TrimSpace(text)
	e.Title = e.Text
	padded := clock
	if len(clock) == len("9:30") {
		padded = "0" + clock
	}
	t, err := time.Parse(timeLayout, padded)
	switch {
	case err != nil:
		problems = append(problems, fmt.Sprintf("invalid time %q (want HH:MM)", clock))
	case !day.IsZero():
		e.Date = day.Add(time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute)
	}
	if !utf8.ValidString(e.Text) {
		problems = append(problems, "invalid UTF-8")
	}
	e.Problem = joinProblems(problems...)
	return e, true
}
