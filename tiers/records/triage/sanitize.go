package triage

import (
	"strings"
	"unicode/utf8"
)

// maxSnippet is the longest snippet, in characters, quoted back to the agent.
const maxSnippet = 120

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// sanitizeSnippet makes transcript text safe to quote inside the hook's
// answer: no control or invisible characters (which could hide
// instructions), no backticks, no markup that could close the
// <triage_data> block, at most maxSnippet characters. It cuts before
// escaping so an entity is never cut in half.
func sanitizeSnippet(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(visible(s), "`", ""))
	if utf8.RuneCountInString(s) > maxSnippet {
		s = string([]rune(s)[:maxSnippet])
	}
	return xmlEscaper.Replace(s)
}

// visible drops invalid UTF-8 and every invisible character of s.
func visible(s string) string {
	return strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
}

// escapeLine makes one transcript line safe to quote in a context file:
// visible characters only, markup escaped.
func escapeLine(s string) string { return xmlEscaper.Replace(visible(s)) }

// invisible reports control characters and the zero-width, bidi and tag
// characters seed 003 strips.
func invisible(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202f,
		r >= 0x2060 && r <= 0x2069, r == 0xfeff, r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}
