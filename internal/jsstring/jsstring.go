// Package jsstring measures and cuts text as JavaScript strings do, in UTF-16
// code units: the unit Claude Code counts its hook context cap in, and the
// unit of the Node scripts whose output zylos-memory reproduces.
package jsstring

import "unicode/utf16"

// Len is String.prototype.length: a rune outside the Basic Multilingual
// Plane counts two, every other rune (an invalid byte's U+FFFD too) one.
func Len(s string) int {
	n := 0
	for _, r := range s {
		n += units(r)
	}
	return n
}

// Cut returns the longest prefix of s of at most n code units that ends on a
// rune boundary.
func Cut(s string, n int) string {
	used := 0
	for i, r := range s {
		if used += units(r); used > n {
			return s[:i]
		}
	}
	return s
}

// Substring is s.substring(0, n) as Node writes it out: the first n code
// units, where a surrogate pair cut in half leaves its lone high half, which
// UTF-8 encoding turns into U+FFFD.
func Substring(s string, n int) string {
	used := 0
	for i, r := range s {
		w := units(r)
		if used+w > n {
			if used < n {
				return s[:i] + "\uFFFD"
			}
			return s[:i]
		}
		used += w
	}
	return s
}

func units(r rune) int {
	if w := utf16.RuneLen(r); w > 0 {
		return w
	}
	return 1
}
