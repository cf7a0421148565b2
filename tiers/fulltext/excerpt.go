package fulltext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// excerptBytes is about how long an excerpt is.
const excerptBytes = 200

// excerpt is the part of body around the first word that matches one of
// the query terms (the same word or one that starts with the term's stem,
// as "migrating" for "migration"), on one line, cut at word boundaries,
// with "..." where text was left out.
func excerpt(body string, ts []string) string {
	body = strings.Join(strings.Fields(body), " ")
	if len(body) <= excerptBytes {
		return body
	}
	at := firstMatch(body, ts)
	start := max(0, at-excerptBytes/3)
	end := min(len(body), start+excerptBytes)
	for start > 0 && !utf8.RuneStart(body[start]) {
		start--
	}
	for end < len(body) && !utf8.RuneStart(body[end]) {
		end++
	}
	if start > 0 {
		if sp := strings.IndexByte(body[start:end], ' '); sp >= 0 {
			start += sp + 1
		}
	}
	if end < len(body) {
		if sp := strings.LastIndexByte(body[start:end], ' '); sp > 0 {
			end = start + sp
		}
	}
	out := body[start:end]
	if start > 0 {
		out = "..." + out
	}
	if end < len(body) {
		out += "..."
	}
	return out
}

// firstMatch is the offset of the first word of s that matches a term,
// or 0.
func firstMatch(s string, ts []string) int { return max(MatchAt(s, ts), 0) }

// MatchAt is the byte offset in s of the first word that matches one of
// the terms ts (as Terms gives them), or -1: the same word or one that
// starts with the term's stem; a CJK term anywhere.
func MatchAt(s string, ts []string) int {
	lower := strings.ToLower(s)
	best := -1
	for _, t := range ts {
		if isCJKTerm(t) { // found inside a run: no word start, no stem
			if i := strings.Index(lower, t); i >= 0 && (best < 0 || i < best) {
				best = i
			}
			continue
		}
		stem := t
		if len(stem) > 5 {
			stem = stem[:len(stem)-2]
		}
		for from := 0; ; {
			i := strings.Index(lower[from:], stem)
			if i < 0 {
				break
			}
			i += from
			if i == 0 || !isWordRune(lower[:i]) {
				if best < 0 || i < best {
					best = i
				}
				break
			}
			from = i + len(stem)
		}
	}
	return best
}

// isWordRune reports whether s ends with a letter or digit.
func isWordRune(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
