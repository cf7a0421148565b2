package fulltext

import (
	"bufio"
	"bytes"
	"hash/crc32"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/zylos/zylos-memory/templates"
)

// A session log becomes one document per timestamped line together with
// the untimestamped lines that follow it (up to maxGroupLines and
// maxDocBytes), and one document per other non-blank line. A longer line
// is cut at maxDocBytes: the index is for finding, the file stays whole.
const (
	maxGroupLines = 4
	maxDocBytes   = 4 << 10
)

// logHeader is the first line rotate and init write.
const logHeader = "# Session Log: "

// logReader cuts a log into documents from a line start.
type logReader struct {
	day  string // YYYY-MM-DD of the log, "" when unknown
	line int    // number of the last line read
	// offset is just past the last complete line read: where an update
	// after an append starts again; digest is the CRC-32C of the bytes
	// before it.
	offset int64
	digest uint32
	// partial is set when the log ends without a newline: its last
	// document starts at line partialLine and is indexed again, whole,
	// by the next update.
	partialLine int
}

// read emits the documents of r, which starts at l.offset.
func (l *logReader) read(r io.Reader, emit func(doc) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var cur *doc
	curLines := 0
	flush := func() error {
		if cur == nil {
			return nil
		}
		d := *cur
		cur = nil
		return emit(d)
	}
	for {
		digest := l.digest
		raw, n, complete, err := readLine(br, &digest)
		if n == 0 && err != nil {
			if err == io.EOF {
				return flush()
			}
			return err
		}
		l.line++
		if complete {
			l.offset += int64(n)
			l.digest = digest
		} else if l.partialLine == 0 {
			l.partialLine = l.line
		}
		text := strings.TrimRight(toValidUTF8(raw), "\r\n")
		trimmed := strings.TrimSpace(text)
		switch {
		case trimmed == "":
			if err := flush(); err != nil {
				return err
			}
			continue
		case strings.HasPrefix(trimmed, logHeader):
			if day, ok := dayPrefix(strings.TrimPrefix(trimmed, logHeader)); ok {
				l.day = day
			}
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		stamped := isTimestamped(trimmed)
		if cur != nil && !stamped && !strings.HasPrefix(trimmed, "#") && curLines < maxGroupLines &&
			len(cur.body)+len(trimmed) < maxDocBytes {
			cur.body += "\n" + trimmed
			curLines++
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		if !stamped && isBoilerplate(trimmed) {
			continue
		}
		d := doc{line: l.line, day: l.day, body: clip(trimmed, maxDocBytes)}
		if stamped {
			cur, curLines = &d, 1
			continue
		}
		if err := emit(d); err != nil {
			return err
		}
	}
}

// readLine returns the next line (with its newline when complete) and the
// bytes it took, and adds them all to digest; a line longer than
// maxDocBytes is read to its end but only its start is kept.
func readLine(br *bufio.Reader, digest *uint32) (line []byte, n int, complete bool, err error) {
	var keep []byte
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		*digest = crc32.Update(*digest, castagnoli(), chunk)
		if len(keep) < maxDocBytes {
			keep = append(keep, chunk[:min(len(chunk), maxDocBytes-len(keep))]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return keep, n, false, err
		}
		return keep, n, true, nil
	}
}

// isBoilerplate reports a line that says nothing of its own: a line of
// the files init writes (headings, intro text, format instructions) or a
// placeholder in parentheses ("(No decisions yet.)"). It is no memory and
// is not indexed.
func isBoilerplate(line string) bool {
	if strings.HasPrefix(line, "(") && strings.HasSuffix(line, ")") {
		return true
	}
	return templateLines()[line]
}

// templateLines are the non-blank lines of the memory files init writes.
var templateLines = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	fs.WalkDir(templates.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(path, "memory") || !strings.HasSuffix(path, ".md") {
			return nil
		}
		data, err := templates.FS.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				set[line] = true
			}
		}
		return nil
	})
	return set
})

// castagnoli is the CRC-32C table (the one the CPU computes), made when
// first used: hooks start this package and most never read a log.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// prefixDigest is the CRC-32C of the first n bytes of the file r.
func prefixDigest(r io.Reader, n int64) (uint32, error) {
	h := crc32.New(castagnoli())
	if _, err := io.CopyN(h, r, n); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}

// isTimestamped reports a "**HH:MM**" line, with or without a list marker.
func isTimestamped(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "- "), "* ")
	if len(s) < 9 || s[:2] != "**" || s[4] != ':' || s[7:9] != "**" {
		return false
	}
	return isDigits(s[2:4]) && isDigits(s[5:7])
}

// dayPrefix is the YYYY-MM-DD s starts with.
func dayPrefix(s string) (string, bool) {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' || !isDigits(s[:4]) || !isDigits(s[5:7]) || !isDigits(s[8:10]) {
		return "", false
	}
	return s[:10], true
}

// logDay is the day a log's name gives (2026-11-16.md, 2026-11-16-1.md).
func logDay(path string) string {
	day, _ := dayPrefix(filepath.Base(path))
	return day
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func toValidUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// complete is the number of lines read up to l.offset.
func (l *logReader) complete() int {
	if l.partialLine > 0 {
		return l.partialLine - 1
	}
	return l.line
}
