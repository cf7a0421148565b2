package records

import "strings"

// IndexLine is one entry line of index.md split in place: its fields are
// substrings of the line and its tags stay raw until asked for, so
// splitting a line that matches nothing, or one whose tags are never
// read, allocates nothing. Every prompt reads the whole index.
type IndexLine struct {
	Category string // lower-case category name
	Display  string // the category as the line spells it: DECISION
	Title    string
	Path     string // relative to Base(root), slash-separated
	rawTags  string // after "#tags:"; "" when there are none
}

// displayCategory maps a display name (DECISION) to its category, without
// an allocation per line.
var displayCategory = func() map[string]string {
	m := make(map[string]string, len(Categories))
	for _, c := range Categories {
		m[Display(c)] = c
	}
	return m
}()

// SplitIndexLine splits an index line, ignoring a trailing CR or LF. It
// accepts exactly the claude-memory plugin's pattern
//
//	^- \[([A-Z_]+)\] (.+?) -> (\S+)(?:\s+#tags:(.+))?$
//
// with a known category, and nothing else (headers, comments, blank
// lines). It uses no regexp: the lazy title group makes the regexp
// backtrack, which cost 20 ms per prompt over 10,000 lines, the whole
// retrieval budget. A differential fuzz test holds it to the pattern.
func SplitIndexLine(line string) (IndexLine, bool) {
	line = strings.TrimRight(line, "\r\n")
	rest, ok := strings.CutPrefix(line, "- [")
	if !ok {
		return IndexLine{}, false
	}
	end := strings.Index(rest, "] ")
	if end <= 0 {
		return IndexLine{}, false
	}
	display := rest[:end]
	cat, ok := displayCategory[display]
	if !ok {
		return IndexLine{}, false
	}
	rest = rest[end+2:]
	// The title is the shortest non-empty prefix after which " -> path"
	// ends the line or is followed by the tags.
	for from := 1; from < len(rest); {
		i := strings.Index(rest[from:], " -> ")
		if i < 0 {
			break
		}
		at := from + i
		if path, tags, ok := splitTarget(rest[at+4:]); ok && !strings.Contains(rest[:at], "\n") {
			return IndexLine{Category: cat, Display: display, Title: rest[:at], Path: path, rawTags: tags}, true
		}
		from = at + 1
	}
	return IndexLine{}, false
}

// splitTarget splits "path[<space>+#tags:a,b]" into the path and its raw
// tags. Like the pattern's "." the tags take anything but a newline.
func splitTarget(s string) (path, rawTags string, ok bool) {
	end := 0
	for end < len(s) && !isRESpace(s[end]) {
		end++
	}
	if end == len(s) {
		return s, "", s != ""
	}
	if end == 0 {
		return "", "", false
	}
	tags := end
	for tags < len(s) && isRESpace(s[tags]) {
		tags++
	}
	raw, ok := strings.CutPrefix(s[tags:], "#tags:")
	if !ok || raw == "" || strings.Contains(raw, "\n") {
		return "", "", false
	}
	return s[:end], raw, true
}

// isRESpace is the pattern's \s: ASCII white space without \v. A byte
// test, not a rune one: every index line goes through it on each prompt.
func isRESpace(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\f', '\r':
		return true
	}
	return false
}

// Entry is the line as an index entry, its tags parsed.
func (l IndexLine) Entry() Entry {
	return Entry{Category: l.Category, Title: l.Title, Path: l.Path, Tags: l.AppendTags(nil)}
}

// AppendTags appends the line's tags to dst, lower-cased and trimmed,
// leaving out empty ones. Scoring a line appends to a buffer on the
// stack, so a line that does not match costs no allocation.
func (l IndexLine) AppendTags(dst []string) []string {
	for raw := l.rawTags; raw != ""; {
		var t string
		t, raw, _ = strings.Cut(raw, ",")
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			dst = append(dst, t)
		}
	}
	return dst
}

// EachIndexLine calls fn for every entry line of an index text, with the
// offset at which the line starts in text. Lines are split at "\n" only,
// and have no length limit.
func EachIndexLine(text string, fn func(at int, l IndexLine)) {
	for at := 0; at < len(text); {
		line, _, _ := strings.Cut(text[at:], "\n")
		if l, ok := SplitIndexLine(line); ok {
			fn(at, l)
		}
		at += len(line) + 1
	}
}
