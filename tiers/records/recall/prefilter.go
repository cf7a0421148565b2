package recall

import (
	"encoding/binary"
	"strings"
	"unsafe"
)

// mayMatch is a cheap test run on every raw index line before it is split
// and tokenized: false means the line cannot score for q. A line scores
// only if some token equals or starts a title word or a tag, so the token
// is a substring of the lowercased line. A line with a non-ASCII byte (or
// a very long one) is always let through, because Unicode lowercasing can
// turn such bytes into ASCII letters (the Kelvin sign into "k").
func (q query) mayMatch(line string) bool {
	var buf [256]byte
	if len(line) > len(buf) {
		return true
	}
	lower := buf[:copy(buf[:], line)]
	if !lowerASCII(lower) {
		return true
	}
	s := unsafe.String(unsafe.SliceData(lower), len(lower))
	for _, tok := range q {
		if strings.Contains(s, tok) {
			return true
		}
	}
	return false
}

const highBits = 0x8080808080808080

// lowerASCII lowercases the ASCII letters of b in place, eight bytes at a
// time, and reports whether b is all ASCII (when it is not, b is left
// partly lowered).
func lowerASCII(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if x&highBits != 0 {
			return false
		}
		// The high bit of a byte of lo is set when it is >= 'A', of hi
		// when it is > 'Z'; below 0x80 no byte carries into the next.
		lo := x + 0x3f3f3f3f3f3f3f3f
		hi := x + 0x2525252525252525
		binary.LittleEndian.PutUint64(b[i:], x|(lo&^hi&highBits)>>2)
	}
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c >= 0x80:
			return false
		case 'A' <= c && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return true
}
