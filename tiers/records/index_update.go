package records

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"unsafe"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// line is one index line kept as text, with its sort key: an update
// touches one or two entries, so every other line is written back as it
// was, never re-formatted.
type line struct{ key, text, path string }

// indexLine is line for an entry line of the index.
func indexLine(text string, l IndexLine) line {
	// Same order as sortEntries: category, title ignoring case, path.
	return line{key: l.Display + "\x00" + strings.ToLower(l.Title) + "\x00" + l.Path, text: text, path: l.Path}
}

// updateIndex drops the entries at the given paths and adds new ones,
// keeping every other line as it is. A missing index is rebuilt from the
// files instead. Callers hold the lock.
func updateIndex(root string, drop []string, add []Entry, warn func(string)) error {
	data, err := regfile.ReadFile(filepath.Join(root, IndexFile))
	if errors.Is(err, fs.ErrNotExist) {
		_, err = RebuildIndex(root, warn)
		return err
	}
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	gone := map[string]bool{}
	for _, p := range drop {
		gone[p] = true
	}
	var lines []line
	for _, e := range add {
		text := e.String()
		if l, ok := SplitIndexLine(text); ok {
			gone[l.Path] = true
			lines = append(lines, indexLine(text, l))
		}
	}
	// data is never written again: the kept lines can share its memory
	// rather than a copy of a whole index.
	text := unsafe.String(unsafe.SliceData(data), len(data))
	EachIndexLine(text, func(at int, l IndexLine) {
		if !gone[l.Path] {
			raw, _, _ := strings.Cut(text[at:], "\n")
			lines = append(lines, indexLine(strings.TrimRight(raw, "\r"), l))
		}
	})
	sort.Slice(lines, func(i, j int) bool { return lines[i].key < lines[j].key })
	var b bytes.Buffer
	b.Grow(len(data) + 256)
	b.WriteString(indexHeader)
	for _, l := range lines {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	if err := atomicfile.WriteFile(filepath.Join(root, IndexFile), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	return nil
}
