package recall

import (
	"encoding/binary"
	"slices"
	"strings"
	"unsafe"
)

// scanChunk is how much of the index is lowercased at a time: small
// enough to stay in cache and to cost a fresh hook process only a few
// new pages, large enough that the per-chunk work is noise.
const scanChunk = 16 << 10

// eachCandidateLine calls fn, in index order, for every line of text that
// may score for q, with its offset in text and how many of the tokens it
// holds; the other lines are never split or tokenized. A line scores only
// if some token equals or starts a title word or a tag, so the token is a
// substring of the lowercased line. The text is lowercased a chunk at a
// time and each token is searched across the whole chunk, which is many
// times faster than testing the tokens line by line. A line with a
// non-ASCII byte, or one longer than a chunk, is always a candidate and
// counted as holding every token: Unicode lowercasing can turn such bytes
// into ASCII letters (the Kelvin sign into "k").
func (q query) eachCandidateLine(text string, fn func(at int, line string, tokens int)) {
	var buf [scanChunk]byte
	var marks []lineMark
	for start := 0; start < len(text); {
		end := len(text)
		if end-start > scanChunk {
			end = start + strings.LastIndexByte(text[start:start+scanChunk], '\n') + 1
			if end == start { // one line longer than a chunk
				line := lineAt(text, start)
				fn(start, line, len(q))
				start += len(line) + 1
				continue
			}
		}
		lower := buf[:copy(buf[:], text[start:end])]
		ascii := lowerASCII(lower)
		marks = q.matchingLines(unsafe.String(unsafe.SliceData(lower), len(lower)), ascii, marks[:0])
		for _, m := range marks {
			fn(start+m.at, lineAt(text, start+m.at), m.tokens)
		}
		start = end
	}
}

// lineMark is a line of a chunk that holds tokens of the query.
type lineMark struct{ at, tokens int }

// matchingLines appends to marks the lines, sorted and distinct, of the
// lowercased chunk that contain a token or, unless the chunk is all
// ASCII, a non-ASCII byte, with how many tokens each holds.
func (q query) matchingLines(chunk string, ascii bool, marks []lineMark) []lineMark {
	for _, tok := range q {
		anchor := rarestByte(tok)
		for from := 0; from < len(chunk); {
			i := indexAnchored(chunk[from:], tok, anchor)
			if i < 0 {
				break
			}
			at := from + i
			// Each token marks a line once: the search goes on from the
			// next line.
			marks = append(marks, lineMark{at: strings.LastIndexByte(chunk[:at], '\n') + 1, tokens: 1})
			from = nextLine(chunk, at)
		}
	}
	if !ascii {
		for at := 0; at < len(chunk); at = nextLine(chunk, at) {
			if !isASCII(lineAt(chunk, at)) {
				marks = append(marks, lineMark{at: at, tokens: len(q)})
			}
		}
	}
	slices.SortFunc(marks, func(a, b lineMark) int { return a.at - b.at })
	merged := marks[:0]
	for _, m := range marks {
		if n := len(merged); n > 0 && merged[n-1].at == m.at {
			merged[n-1].tokens = min(merged[n-1].tokens+m.tokens, len(q))
			continue
		}
		merged = append(merged, m)
	}
	return merged
}

// byteRarity ranks the bytes of tokens from rarest to most common in
// English text, digits in the middle: index lines are titles, tags and
// paths with numbered ids.
const byteRarity = "zqxjkvbpygfw0123456789mucldrhsnioate"

// rarestByte is the offset in tok of its rarest byte.
func rarestByte(tok string) int {
	best, rank := 0, len(byteRarity)
	for i := 0; i < len(tok); i++ {
		if r := strings.IndexByte(byteRarity, tok[i]); r >= 0 && r < rank {
			best, rank = i, r
		}
	}
	return best
}

// indexAnchored is strings.Index(s, tok), found by hopping between the
// occurrences of tok's rarest byte (at offset anchor in tok) rather than
// of its first byte: on an index of English titles, the first byte of a
// word is often a common letter, and so are the two after it.
func indexAnchored(s, tok string, anchor int) int {
	c := tok[anchor]
	for from := anchor; from < len(s); {
		j := strings.IndexByte(s[from:], c)
		if j < 0 {
			return -1
		}
		start := from + j - anchor
		if start+len(tok) <= len(s) && s[start:start+len(tok)] == tok {
			return start
		}
		from += j + 1
	}
	return -1
}

// lineAt is the line of s that starts at offset at, without its "\n".
func lineAt(s string, at int) string {
	line, _, _ := strings.Cut(s[at:], "\n")
	return line
}

// nextLine is the offset of the line after the one holding offset at.
func nextLine(s string, at int) int {
	if nl := strings.IndexByte(s[at:], '\n'); nl >= 0 {
		return at + nl + 1
	}
	return len(s)
}

const highBits = 0x8080808080808080

// lowerASCII lowercases the ASCII letters of b in place, eight bytes at a
// time, leaves every other byte as it is and reports whether b is all
// ASCII.
func lowerASCII(b []byte) bool {
	ascii := true
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if x&highBits != 0 {
			ascii = false
			lowerBytes(b[i : i+8])
			continue
		}
		// The high bit of a byte of lo is set when it is >= 'A', of hi
		// when it is > 'Z'; below 0x80 no byte carries into the next.
		lo := x + 0x3f3f3f3f3f3f3f3f
		hi := x + 0x2525252525252525
		binary.LittleEndian.PutUint64(b[i:], x|(lo&^hi&highBits)>>2)
	}
	return lowerBytes(b[i:]) && ascii
}

// lowerBytes is lowerASCII one byte at a time.
func lowerBytes(b []byte) bool {
	ascii := true
	for i, c := range b {
		switch {
		case c >= 0x80:
			ascii = false
		case 'A' <= c && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return ascii
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
