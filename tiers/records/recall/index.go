package recall

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/zylos/zylos-memory/tiers/records"
)

// indexEntries parses an index text into the same entries as
// records.ReadIndex (a differential fuzz test holds them equal), keeping
// those keep accepts (all when keep is nil). Filtering while reading keeps
// a hook process from touching memory it does not need.
func indexEntries(text string, keep func(indexLine) bool) []records.Entry {
	var out []records.Entry
	eachIndexLine(text, func(_ int, l indexLine) {
		if keep == nil || keep(l) {
			out = append(out, l.entry())
		}
	})
	return out
}

// eachIndexLine calls fn for every valid line of an index text. It uses no
// regexp: the lazy title group of the index pattern makes the regexp
// backtrack, which cost 20 ms per prompt over 10,000 lines, the whole
// retrieval budget. fn also gets the offset of the line in text.
func eachIndexLine(text string, fn func(at int, l indexLine)) {
	eachLine(text, func(at int, line string) {
		if l, ok := splitIndexLine(line); ok {
			fn(at, l)
		}
	})
}

// eachLine calls fn for every line of text, without its "\n", and its
// offset in text.
func eachLine(text string, fn func(at int, line string)) {
	for at := 0; at < len(text); {
		line, _, _ := strings.Cut(text[at:], "\n")
		fn(at, line)
		at += len(line) + 1
	}
}

// indexLineAt splits the line of text that starts at offset at.
func indexLineAt(text string, at int) indexLine {
	line, _, _ := strings.Cut(text[at:], "\n")
	l, _ := splitIndexLine(line)
	return l
}

// readIndexRebuilding reads the index of root, rebuilding it first when it
// is missing but the root exists (the index is derived from the files).
func readIndexRebuilding(root string, warn func(string), keep func(indexLine) bool) ([]records.Entry, error) {
	text, err := readIndexText(root, warn)
	if err != nil {
		return nil, err
	}
	return indexEntries(text, keep), nil
}

// readIndexText is the text of root's index, rebuilt first when it is
// missing but the root exists.
func readIndexText(root string, warn func(string)) (string, error) {
	path := filepath.Join(root, records.IndexFile)
	text, err := readString(path)
	if errors.Is(err, fs.ErrNotExist) && isDir(root) {
		// Under the writers' lock, so a rebuild never overwrites the index
		// a concurrent write has just updated.
		if rerr := records.IndexRebuild(root, io.Discard, warn); rerr == nil {
			text, err = readString(path)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w at %s", ErrNoIndex, root)
	}
	if err != nil {
		return "", fmt.Errorf("read index: %w", err)
	}
	return text, nil
}

// readString reads a file into a string without copying it: the index is
// the largest thing a prompt reads, and in a fresh process every copied
// megabyte is page faults. The bytes are never written after the read.
func readString(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return "", err
	}
	return unsafe.String(&data[0], len(data)), nil
}

// indexLine is one index line split in place: its fields are substrings
// of the line and its tags are still raw, so a line that matches nothing
// costs no allocation.
type indexLine struct {
	category, display, title, path string
	rawTags                        string // after "#tags:"; "" when there are none
}

// categoryOfDisplay is records.CategoryOfDisplay without its allocation
// per line: display name to category.
var categoryOfDisplay = func() map[string]string {
	m := make(map[string]string, len(records.Categories))
	for _, c := range records.Categories {
		m[records.Display(c)] = c
	}
	return m
}()

// parseIndexLine accepts exactly what records.ParseEntry accepts:
// ^- \[([A-Z_]+)\] (.+?) -> (\S+)(?:\s+#tags:(.+))?$ with a known category.
func parseIndexLine(line string) (records.Entry, bool) {
	l, ok := splitIndexLine(line)
	if !ok {
		return records.Entry{}, false
	}
	return l.entry(), true
}

func (l indexLine) entry() records.Entry {
	return records.Entry{Category: l.category, Title: l.title, Path: l.path, Tags: l.appendTags(nil)}
}

// appendTags appends the lowercased, trimmed, non-empty tags to dst.
func (l indexLine) appendTags(dst []string) []string {
	for raw := l.rawTags; raw != ""; {
		var t string
		t, raw, _ = strings.Cut(raw, ",")
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			dst = append(dst, t)
		}
	}
	return dst
}

func splitIndexLine(line string) (indexLine, bool) {
	line = strings.TrimRight(line, "\r\n")
	rest, ok := strings.CutPrefix(line, "- [")
	if !ok {
		return indexLine{}, false
	}
	end := strings.Index(rest, "] ")
	if end <= 0 {
		return indexLine{}, false
	}
	display := rest[:end]
	cat, ok := categoryOfDisplay[display]
	if !ok {
		return indexLine{}, false
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
		if path, tags, ok := splitTarget(rest[at+4:]); ok && validTitle(rest[:at]) {
			return indexLine{category: cat, display: display, title: rest[:at], path: path, rawTags: tags}, true
		}
		from = at + 1
	}
	return indexLine{}, false
}

// validTitle: the pattern's "." matches any character but a newline.
func validTitle(s string) bool { return !strings.Contains(s, "\n") }

// splitTarget splits "path[<space>+#tags:a,b]" into the path and its raw
// tags.
func splitTarget(s string) (path, rawTags string, ok bool) {
	end := strings.IndexFunc(s, isRESpace)
	if end < 0 {
		return s, "", s != ""
	}
	if end == 0 {
		return "", "", false
	}
	raw, ok := strings.CutPrefix(strings.TrimLeftFunc(s[end:], isRESpace), "#tags:")
	if !ok || raw == "" || strings.Contains(raw, "\n") {
		return "", "", false
	}
	return s[:end], raw, true
}

// isRESpace is the regexp's \s: ASCII whitespace only.
func isRESpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\f', '\r':
		return true
	}
	return false
}
