package recall

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// entryCacheFile, under the state directory, holds what retrieval needs
// of each reference file, so a prompt does not parse the whole reference
// tier with goldmark: over a thousand entries that was the largest part
// of the hook's time. It is text in the shape of the entry lines
// retrieval scores (see entryText), so a warm prompt reads it once and
// scores it with the index's pre-filter, decoding only the lines that can
// match: decoding a JSON form of it cost a fresh hook process more than a
// millisecond of allocations.
const entryCacheFile = "recall-entries"

// oldEntryCacheFile is the JSON cache of earlier versions, removed when the
// text cache is written.
const oldEntryCacheFile = "recall-entries.json"

// entryCacheHeader starts the cache; it changes whenever what is cached or
// how it is extracted changes, and a cache with another header is rebuilt.
const entryCacheHeader = "zylos-memory recall entries 2\n"

// fileKey tells whether a markdown file changed since it was cached.
type fileKey struct {
	size, modNano int64
	inode         uint64
}

func keyOf(path string) (fileKey, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileKey{}, err
	}
	k := fileKey{size: fi.Size(), modNano: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		k.inode = uint64(st.Ino)
	}
	return k, nil
}

// cachedEntryText is the entry text of the *.md files of dir, from the
// cache file when no file changed. Changed or new files are parsed and the
// cache rewritten; any problem with it (corrupt, unreadable, read-only
// home) just means parsing, never an error. A file that cannot be parsed
// is left out, and tried again on the next prompt without a rewrite.
func cachedEntryText(dir, cacheFile string) string {
	data, _ := regfile.ReadFile(cacheFile)
	// data is never written again: the text can share its memory.
	cached := unsafe.String(unsafe.SliceData(data), len(data))
	old := cachedSections(cached)
	var sections []string // the new cache's, in file order
	reused, parsed := 0, 0
	for _, f := range markdownFiles(dir) {
		// The key is taken before any parse: a file that changes during
		// the parse gets a new key and is parsed again next time.
		key, err := keyOf(f)
		if err != nil {
			continue
		}
		if s, ok := old[f]; ok && s.key == key {
			sections = append(sections, s.text)
			reused++
			continue
		}
		if entries, err := parseMarkdown(f); err == nil {
			var b strings.Builder
			writeSection(&b, f, key, entries)
			sections = append(sections, b.String())
			parsed++
		}
	}
	if old != nil && reused == len(old) && parsed == 0 {
		return cached
	}
	text := entryCacheHeader + strings.Join(sections, "")
	if os.MkdirAll(filepath.Dir(cacheFile), 0o755) == nil && atomicfile.WriteFile(cacheFile, []byte(text), 0o644) == nil {
		_ = os.Remove(filepath.Join(filepath.Dir(cacheFile), oldEntryCacheFile))
	}
	return text
}

// entryText is the entry text of files parsed now, for tiers read too
// rarely to cache (the archive).
func entryText(files []string) string {
	var b strings.Builder
	for _, f := range files {
		if entries, err := parseMarkdown(f); err == nil {
			writeSection(&b, f, fileKey{}, entries)
		}
	}
	return b.String()
}

// A section is one file's header line,
//
//	@ <size> <mtime ns> <inode> "<path>"
//
// then one line per entry (see writeEntry).
func writeSection(b *strings.Builder, path string, key fileKey, entries []entryData) {
	fmt.Fprintf(b, "@ %d %d %d %s\n", key.size, key.modNano, key.inode, strconv.Quote(path))
	for _, e := range entries {
		writeEntry(b, e)
	}
}

type section struct {
	key  fileKey
	text string // the section, header line included
}

// cachedSections splits a cache text into its sections by path; nil when
// the text is not a cache of this version or is damaged.
func cachedSections(text string) map[string]section {
	rest, ok := strings.CutPrefix(text, entryCacheHeader)
	if !ok {
		return nil
	}
	out := map[string]section{}
	for rest != "" {
		path, key, ok := parseSectionHeader(rest)
		if !ok {
			return nil
		}
		end := strings.Index(rest, "\n@ ") + 1
		if end == 0 {
			end = len(rest)
		}
		out[path] = section{key: key, text: rest[:end]}
		rest = rest[end:]
	}
	return out
}

// parseSectionHeader parses the header line at the start of s.
func parseSectionHeader(s string) (path string, key fileKey, ok bool) {
	_, err := fmt.Sscanf(lineAt(s, 0), "@ %d %d %d %q", &key.size, &key.modNano, &key.inode, &path)
	return path, key, err == nil
}

// entryData is what retrieval uses of a markdown entry.
type entryData struct {
	Category string
	Title    string
	Line     int
	Tags     []string
	Status   string
	Date     time.Time
}

// writeEntry writes e as one line,
//
//	<line> <CATEGORY> <date or -> "<status>" "<tags,comma,separated>" "<title>"
//
// What comes from the markdown is quoted, so no newline or tab of it can
// break the line, and every [a-z0-9] run of it survives as it is, which is
// what the pre-filter looks for.
func writeEntry(b *strings.Builder, e entryData) {
	date := "-"
	if !e.Date.IsZero() {
		date = e.Date.Format(time.RFC3339)
	}
	fmt.Fprintf(b, "%d %s %s %s %s %s\n", e.Line, e.Category, date,
		strconv.Quote(e.Status), strconv.Quote(strings.Join(e.Tags, ",")), strconv.Quote(e.Title))
}

// entryLine is one entry line split into fields; its strings point into
// the line unless they had escapes.
type entryLine struct {
	line                   int
	category, date, status string
	rawTags, title         string
}

func parseEntryLine(s string) (e entryLine, ok bool) {
	var fields [3]string
	for i := range fields {
		if fields[i], s, ok = strings.Cut(s, " "); !ok {
			return entryLine{}, false
		}
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil {
		return entryLine{}, false
	}
	e = entryLine{line: n, category: fields[1], date: fields[2]}
	for i, dst := range []*string{&e.status, &e.rawTags, &e.title} {
		if i > 0 {
			if s, ok = strings.CutPrefix(s, " "); !ok {
				return entryLine{}, false
			}
		}
		if *dst, s, ok = unquotePrefix(s); !ok {
			return entryLine{}, false
		}
	}
	return e, s == ""
}

// unquotePrefix unquotes the Go string literal at the start of s.
func unquotePrefix(s string) (value, rest string, ok bool) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", false
	}
	value, err = strconv.Unquote(q)
	return value, s[len(q):], err == nil
}

// appendTags appends the entry's tags to dst.
func (e entryLine) appendTags(dst []string) []string {
	if e.rawTags == "" {
		return dst
	}
	for t := range strings.SplitSeq(e.rawTags, ",") {
		dst = append(dst, t)
	}
	return dst
}

// parseMarkdown extracts the entries of one markdown file that have a
// title.
func parseMarkdown(path string) ([]entryData, error) {
	entries, err := tiers.ParseFile(path)
	if err != nil {
		return nil, err
	}
	var out []entryData
	for _, e := range entries {
		if e.Title != "" {
			out = append(out, entryData{Category: entryCategory(e.Kind), Title: e.Title, Line: e.Line,
				Tags: entryTags(e), Status: e.Status(), Date: e.Date})
		}
	}
	return out, nil
}
