package records

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// TitleMax is the longest title a record may have, in characters.
const TitleMax = 120

// invisible reports control, zero-width, bidi and tag characters: the
// ranges the claude-memory plugin strips from titles, tags and snippets.
func invisible(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202f,
		r >= 0x2060 && r <= 0x2069, r == 0xfeff, r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return r == utf8.RuneError
}

func stripInvisible(s string) string {
	return strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, s)
}

// SanitizeTitle makes a title safe for one index line: invisible
// characters gone, " -> " defused, "#tags:" removed, spaces trimmed. It is
// applied on write; readers apply it again (plus XML escaping) before
// injecting a title into a prompt.
func SanitizeTitle(t string) string {
	t = stripInvisible(t)
	t = strings.ReplaceAll(t, "->", "-")
	for strings.Contains(t, "#tags:") {
		t = strings.ReplaceAll(t, "#tags:", "")
	}
	return strings.Join(strings.Fields(t), " ")
}

// SanitizeTag lower-cases a tag and strips what would break the index
// line's tag list: invisible characters, commas, arrows, "#tags:" and
// whitespace at the ends. The answer may be empty (drop the tag).
func SanitizeTag(t string) string {
	t = strings.ToLower(stripInvisible(t))
	t = strings.ReplaceAll(t, "->", "")
	t = strings.ReplaceAll(t, "#tags:", "")
	t = strings.ReplaceAll(t, ",", "")
	t = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, t)
	return strings.Join(strings.Fields(t), " ")
}

// xmlEscaper is shared: a Replacer builds its tables on first use, a few
// kilobytes that a hook process should pay once, not once per line.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// EscapeXML escapes the three characters that could close or open a tag
// around injected memory context.
func EscapeXML(s string) string { return xmlEscaper.Replace(s) }

// Truncate cuts s to at most n characters.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
