package recall

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/tiers/records"
)

// readIndex parses root/index.md into the same entries as
// records.ReadIndex (a differential fuzz test holds them equal), keeping
// those keep accepts (all when keep is nil). It uses no regexp: the lazy
// title group of the index pattern makes the regexp backtrack, which cost
// 20 ms per prompt over 10,000 lines, the whole retrieval budget. Filtering
// while reading keeps a hook process from touching memory it does not need.
// A missing index is fs.ErrNotExist.
func readIndex(root string, keep func(records.Entry) bool) ([]records.Entry, error) {
	text, err := readString(filepath.Join(root, records.IndexFile))
	if err != nil {
		return nil, err
	}
	var out []records.Entry
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		if e, ok := parseIndexLine(line); ok && (keep == nil || keep(e)) {
			out = append(out, e)
		}
		text = rest
	}
	return out, nil
}

// readIndexRebuilding reads the index of root, rebuilding it first when it
// is missing but the root exists (the index is derived from the files).
func readIndexRebuilding(root string, warn func(string), keep func(records.Entry) bool) ([]records.Entry, error) {
	es, err := readIndex(root, keep)
	if errors.Is(err, fs.ErrNotExist) && isDir(root) {
		// Under the writers' lock, so a rebuild never overwrites the index
		// a concurrent write has just updated.
		if rerr := records.IndexRebuild(root, io.Discard, warn); rerr == nil {
			es, err = readIndex(root, keep)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", ErrNoIndex, root)
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	return es, nil
}

// readString reads a file straight into a string, without the second copy
// of string(os.ReadFile(...)).
func readString(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	if fi, err := f.Stat(); err == nil {
		b.Grow(int(fi.Size()) + 1)
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return b.String(), nil
}

// parseIndexLine accepts exactly what records.ParseEntry accepts:
// ^- \[([A-Z_]+)\] (.+?) -> (\S+)(?:\s+#tags:(.+))?$ with a known category.
func parseIndexLine(line string) (records.Entry, bool) {
	line = strings.TrimRight(line, "\r\n")
	rest, ok := strings.CutPrefix(line, "- [")
	if !ok {
		return records.Entry{}, false
	}
	end := strings.Index(rest, "] ")
	if end <= 0 || !isDisplayName(rest[:end]) {
		return records.Entry{}, false
	}
	cat := records.CategoryOfDisplay(rest[:end])
	if cat == "" {
		return records.Entry{}, false
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
			return records.Entry{Category: cat, Title: rest[:at], Path: path, Tags: tags}, true
		}
		from = at + 1
	}
	return records.Entry{}, false
}

func isDisplayName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'A' || c > 'Z') && c != '_' {
			return false
		}
	}
	return true
}

// validTitle: the pattern's "." matches any character but a newline.
func validTitle(s string) bool { return !strings.Contains(s, "\n") }

// splitTarget splits "path[<space>+#tags:a,b]" into the path and its tags.
func splitTarget(s string) (path string, tags []string, ok bool) {
	end := strings.IndexFunc(s, isRESpace)
	if end < 0 {
		return s, nil, s != ""
	}
	if end == 0 {
		return "", nil, false
	}
	raw, ok := strings.CutPrefix(strings.TrimLeftFunc(s[end:], isRESpace), "#tags:")
	if !ok || raw == "" || strings.Contains(raw, "\n") {
		return "", nil, false
	}
	for _, t := range strings.Split(raw, ",") {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			tags = append(tags, t)
		}
	}
	return s[:end], tags, true
}

// isRESpace is the regexp's \s: ASCII whitespace only.
func isRESpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\f', '\r':
		return true
	}
	return false
}
