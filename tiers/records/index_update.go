package records

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zylos/zylos-memory/internal/atomicfile"
)

// line is one index line kept as text, with the sort key and path cut
// out of it by plain string operations: an update touches one or two
// entries, so re-parsing and re-formatting every line with the regular
// expression would cost more than the write itself on a large store.
type line struct{ key, text, path string }

// cutLine splits an index line the way the index pattern does (first
// " -> ", path up to the first space). ok is false for anything that is
// not an entry of a known category.
func cutLine(text string) (l line, ok bool) {
	if !strings.HasPrefix(text, "- [") {
		return line{}, false
	}
	cat, rest, ok := strings.Cut(text[3:], "] ")
	if !ok || CategoryOfDisplay(cat) == "" {
		return line{}, false
	}
	title, path, ok := strings.Cut(rest, " -> ")
	if !ok || title == "" {
		return line{}, false
	}
	path, _, _ = strings.Cut(path, " ")
	if path == "" {
		return line{}, false
	}
	// Same order as sortEntries: category, title ignoring case, path.
	return line{key: cat + "\x00" + strings.ToLower(title) + "\x00" + path, text: text, path: path}, true
}

// updateIndex drops the entries at the given paths and adds new ones,
// keeping every other line as it is. A missing index is rebuilt from the
// files instead. Callers hold the lock.
func updateIndex(root string, drop []string, add []Entry, warn func(string)) error {
	data, err := os.ReadFile(filepath.Join(root, IndexFile))
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
		if l, ok := cutLine(e.String()); ok {
			gone[l.path] = true
			lines = append(lines, l)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if l, ok := cutLine(sc.Text()); ok && !gone[l.path] {
			lines = append(lines, l)
		}
	}
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
