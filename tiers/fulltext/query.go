package fulltext

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrNoTerms reports a query with nothing to search for: only stop words,
// punctuation or one-letter words.
var ErrNoTerms = errors.New("nothing to search for: the query has only stop words, punctuation or single letters")

// maxTerms bounds the words of a query that are searched: a pasted page
// of text is searched by its first maxTerms distinct words, found in its
// first maxQueryBytes (a 10 MB prompt costs no more than a page).
const (
	maxTerms      = 48
	maxQueryBytes = 64 << 10
)

// Terms are the words of text search looks for, or ErrNoTerms.
func Terms(text string) ([]string, error) {
	if ts := terms(text); len(ts) > 0 {
		return ts, nil
	}
	return nil, ErrNoTerms
}

// terms are the distinct searchable words of text, lower case, in order:
// letters and digits only, so nothing the user types (quotes, *, -, :,
// NEAR, parentheses) can reach FTS5 as query syntax. A run of CJK letters
// gives the terms of cjkTerms; other words of one letter and stop words
// are left out.
func terms(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) bool {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
		return len(out) < maxTerms
	}
	word := func(w string, cjk bool) bool {
		if cjk {
			return cjkTerms(w, add)
		}
		w = strings.ToLower(w)
		if stopWords[w] || utf8.RuneCountInString(w) < 2 {
			return true
		}
		return add(w)
	}
	text = clip(text, maxQueryBytes)
	start, startCJK := -1, false
	for i, r := range text {
		letter := unicode.IsLetter(r) || unicode.IsDigit(r)
		cjk := letter && isCJK(r)
		if start >= 0 && (!letter || cjk != startCJK) {
			if !word(text[start:i], startCJK) {
				return out
			}
			start = -1
		}
		if letter && start < 0 {
			start, startCJK = i, cjk
		}
	}
	if start >= 0 {
		word(text[start:], startCJK)
	}
	return out
}

// matchExpr is the FTS5 expression of terms: any of them, each quoted as
// a string so that even a word like NEAR or AND is a word.
func matchExpr(ts []string) string { return strings.Join(quoted(ts), " OR ") }

// quoted are terms each quoted as an FTS5 string, a CJK term as its
// expression over the cjk column.
func quoted(ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		if isCJKTerm(t) {
			out[i] = cjkMatch(t)
			continue
		}
		out[i] = `"` + t + `"`
	}
	return out
}

// stopWords are English words too common to tell memories apart, and the
// words a question is made of rather than what it is about.
var stopWords = toSet(`a about above after again against all also am an and any are aren as at be because been
before being below between both but by can cannot could couldn did didn do does doesn doing don down during each
few for from further had hadn has hasn have haven having he her here hers herself him himself his how i if in into
is isn it its itself just let me more most my myself no nor not now of off on once only or other ought our ours
ourselves out over own same shan she should shouldn so some such than that the their theirs them themselves then
there these they this those through to too under until up very was wasn we were weren what when where which while
who whom why will with won would wouldn you your yours yourself yourselves ll ve re
anything something everything thing things remind recall remember tell told say said mention mentioned know
please thanks thank yes ok okay hi hey again ever still yet`)

func toSet(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}
