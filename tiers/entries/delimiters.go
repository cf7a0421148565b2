package entries

import "bytes"

// MaxParagraphDelimiters bounds the emphasis delimiters ('*', '_') the
// parser sees in one paragraph. Its work on a paragraph grows with the
// square of them: "*a_ " repeated over 280 KB took 25 s to parse, and
// 32 KB a third of a second. An entry's fields need a few ("**Decision:**").
const MaxParagraphDelimiters = 1024

// bounded is src as the parser is given it: nesting and delimiters bounded.
func bounded(src []byte) []byte { return boundDelimiters(boundNesting(src)) }

// boundDelimiters returns src with the emphasis delimiters of every
// paragraph (a run of non-blank lines) that has more than
// MaxParagraphDelimiters turned into letters, but for each line's leading
// marker and field label ("- **Decision:**"), so that the parser sees the
// paragraph's structure and fields and takes the rest as plain text.
// Bytes keep their offsets, so entries still cite and quote src itself;
// src comes back unchanged (not copied) when no paragraph has that many.
func boundDelimiters(src []byte) []byte {
	out := src
	for start := 0; start < len(src); {
		end, count := start, 0
		for end < len(src) { // the paragraph: up to a blank line
			nl := bytes.IndexByte(src[end:], '\n')
			line := src[end:]
			if nl >= 0 {
				line = src[end : end+nl+1]
			}
			if len(bytes.TrimSpace(line)) == 0 {
				break
			}
			count += bytes.Count(line, []byte("*")) + bytes.Count(line, []byte("_"))
			end += len(line)
		}
		if count > MaxParagraphDelimiters {
			if &out[0] == &src[0] {
				out = append([]byte(nil), src...)
			}
			neutralize(out[start:end])
		}
		if end == start { // a blank line
			if nl := bytes.IndexByte(src[start:], '\n'); nl >= 0 {
				end = start + nl + 1
			} else {
				end = len(src)
			}
		}
		start = end
	}
	return out
}

// neutralize turns the emphasis delimiters of para's lines into letters,
// past each line's leading marker and field label.
func neutralize(para []byte) {
	for len(para) > 0 {
		nl := bytes.IndexByte(para, '\n')
		line := para
		if nl >= 0 {
			line = para[:nl+1]
		}
		for i := keptPrefix(line); i < len(line); i++ {
			if line[i] == '*' || line[i] == '_' {
				line[i] = 'x'
			}
		}
		para = para[len(line):]
	}
}

// keptPrefix is how much of line's start the parser must still see: the
// indent, a list marker ("- ", "* ", "1. ") and a "**Label:**" after it.
func keptPrefix(line []byte) int {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) {
		return i
	}
	if n := markerLen(line[i:]); n > 0 {
		i += n
		for i < len(line) && line[i] == ' ' {
			i++
		}
	}
	if bytes.HasPrefix(line[i:], []byte("**")) {
		if end := bytes.Index(line[i+2:], []byte(":**")); end >= 0 && end <= 64 {
			i += 2 + end + 3
		}
	}
	return i
}
