package entries

import (
	"bytes"
	"strings"
)

// An entry backed by a record names it by an id comment on a line of its
// own, "<!-- id: slug -->". The comment travels with the entry into the
// archive, so it is the entry's identity there too: consolidation
// recognises an entry it archived before by it, whatever else changed.
const (
	idPrefix = "<!-- id: "
	idSuffix = " -->"
)

// IDComment is the comment line that names record id.
func IDComment(id string) string { return idPrefix + id + idSuffix }

// ParseIDComment answers the id named by a line (trimmed of spaces) that
// is an id comment.
func ParseIDComment(line string) (string, bool) {
	if len(line) < len(idPrefix)+len(idSuffix) || !strings.HasPrefix(line, idPrefix) || !strings.HasSuffix(line, idSuffix) {
		return "", false
	}
	return strings.TrimSpace(line[len(idPrefix) : len(line)-len(idSuffix)]), true
}

// PlainLines calls fn with each line of src[start:end] outside fenced
// code: its start, the start of the next line, and its text trimmed of
// spaces. fn answers false to stop.
func PlainLines(src []byte, start, end int, fn func(pos, next int, line string) bool) {
	fence := ""
	for pos := start; pos < end; {
		next := end
		if i := bytes.IndexByte(src[pos:end], '\n'); i >= 0 {
			next = pos + i + 1
		}
		line := strings.TrimSpace(string(src[pos:next]))
		switch {
		case fence != "":
			if strings.HasPrefix(line, fence) {
				fence = ""
			}
		case strings.HasPrefix(line, "```"), strings.HasPrefix(line, "~~~"):
			fence = line[:3]
		default:
			if !fn(pos, next, line) {
				return
			}
		}
		pos = next
	}
}

// Identity is the id an entry's text names, and its text without that
// comment's line. An entry with no id comment, or with more than one,
// has no id: its text alone is what it is.
func Identity(text string) (id, rest string) {
	src := []byte(text)
	var line [2]int
	n := 0
	PlainLines(src, 0, len(src), func(pos, next int, l string) bool {
		if got, ok := ParseIDComment(l); ok {
			id, line = got, [2]int{pos, next}
			n++
		}
		return n < 2
	})
	if n != 1 || id == "" {
		return "", text
	}
	return id, strings.TrimRight(text[:line[0]]+text[line[1]:], " \t\r\n")
}
