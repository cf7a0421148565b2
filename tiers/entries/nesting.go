package entries

// MaxMarkerColumn is the last column (0-based, tabs to multiples of 4) at
// which a line may open a list item or a block quote for the parser. The
// markdown parser's work on a line grows with the square of the lists and
// quotes open there, so "- " repeated 40,000 times on one line, or list
// items indented a little deeper on each of 1,900 lines, cost seconds to
// hours per file. No entry sits that deep: entries are headings and
// first-level field items.
const MaxMarkerColumn = 24

// boundNesting returns src with the first list or quote marker that starts
// past MaxMarkerColumn on each line turned into a letter, so the rest of
// that line is plain text to the parser. Bytes keep their offsets, so
// entries still cite and quote src itself. src comes back unchanged (not
// copied) when no line goes that deep.
func boundNesting(src []byte) []byte {
	out := src
	for start := 0; start < len(src); {
		end := start
		for end < len(src) && src[end] != '\n' {
			end++
		}
		if at := deepMarker(src[start:end]); at >= 0 {
			if &out[0] == &src[0] {
				out = append([]byte(nil), src...)
			}
			out[start+at] = 'x'
		}
		start = end + 1
	}
	return out
}

// deepMarker is the offset of the first list or quote marker of line that
// starts past MaxMarkerColumn, or -1. A thematic break ("* * *") has none.
func deepMarker(line []byte) int {
	col := 0
	for pos := 0; pos < len(line); {
		switch line[pos] {
		case ' ':
			col++
			pos++
			continue
		case '\t':
			col += 4 - col%4
			pos++
			continue
		}
		n := markerLen(line[pos:])
		switch {
		case n == 0:
			return -1
		case col > MaxMarkerColumn && !isThematicBreak(line):
			return pos
		}
		pos += n
		col += n
	}
	return -1
}

// markerLen is the length of the quote or list marker at the start of s,
// or 0: ">", or "-", "*", "+", "1." or "1)" (up to 9 digits) followed by a
// space, a tab or the end of the line.
func markerLen(s []byte) int {
	if s[0] == '>' {
		return 1
	}
	n := 0
	switch {
	case s[0] == '-' || s[0] == '*' || s[0] == '+':
		n = 1
	default:
		for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n == len(s) || (s[n] != '.' && s[n] != ')') {
			return 0
		}
		n++
	}
	if n < len(s) && s[n] != ' ' && s[n] != '\t' {
		return 0
	}
	return n
}

// isThematicBreak: three or more of one of - * _ and nothing else but
// spaces and tabs.
func isThematicBreak(line []byte) bool {
	var mark byte
	count := 0
	for _, c := range line {
		switch {
		case c == ' ' || c == '\t':
		case mark == 0 && (c == '-' || c == '*' || c == '_'):
			mark, count = c, 1
		case c == mark:
			count++
		default:
			return false
		}
	}
	return count >= 3
}
