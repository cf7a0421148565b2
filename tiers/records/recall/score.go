package recall

import (
	"slices"
	"strings"
)

// Points of the retrieval score (seed 003): a prompt token equal to a title
// word, equal to a tag, or (at four characters or more) a prefix of either.
const (
	titlePoints  = 2
	tagPoints    = 3
	prefixPoints = 1
	// maxTokenPoints is the most one token can earn: equal to a title
	// word and to a tag (a prefix point only goes to a token that matched
	// nothing exactly).
	maxTokenPoints = titlePoints + tagPoints
	minPrefixLen   = 4
	candidateMin   = 3 // a candidate needs at least one tag or two title hits
	deepCheckTop   = 20
	recencyDays    = 30
	recencyPoints  = 1
)

// Score is the text score of one entry for the prompt tokens. A token equal
// to a title word and to a tag earns both; a prefix point only goes to a
// token that matched nothing exactly.
func Score(tokens map[string]struct{}, title string, tags []string) int {
	return newQuery(tokens).score(title, tags)
}

// query is the prompt tokens as a slice: it scores every index line on
// each prompt, and ranging over a map cost more than the comparisons.
type query []string

func newQuery(tokens map[string]struct{}) query {
	q := make(query, 0, len(tokens))
	for tok := range tokens {
		q = append(q, tok)
	}
	return q
}

func (q query) score(title string, tags []string) int {
	if !isASCII(title) {
		// Unicode lowercasing can turn other bytes into ASCII letters (the
		// Kelvin sign into "k"): only an ASCII title is folded byte by byte.
		title = strings.ToLower(title)
	}
	var buf [16]string
	words := titleWords(title, buf[:0])
	score := 0
	for _, tok := range q {
		inTitle := slices.ContainsFunc(words, func(w string) bool { return equalFold(w, tok) })
		inTags := slices.Contains(tags, tok)
		if inTitle {
			score += titlePoints
		}
		if inTags {
			score += tagPoints
		}
		if inTitle || inTags || len(tok) < minPrefixLen {
			continue
		}
		if prefixOfTitleWord(tok, words) || prefixOfTag(tok, tags) {
			score += prefixPoints
		}
	}
	return score
}

// titleWords are the [a-z0-9] runs of an ASCII or lowercased title, in its
// case, appended to dst: a slice, not a set, because it runs for every
// candidate line on every prompt and titles are a few words long; in its
// case, because lowercasing a title cost an allocation per line. Unlike
// Tokenize it keeps short words and stop words: no token can equal one
// (tokens have neither), and the prefix test skips them, so leaving them
// in costs nothing, while looking each word up in the stop list cost a
// tenth of the scoring.
func titleWords(title string, dst []string) []string {
	forEachWord(title, func(w string) { dst = append(dst, w) })
	return dst
}

// prefixOfTitleWord tells whether tok starts one of the title words
// that are tokens of their own (not stop words, see titleWords).
func prefixOfTitleWord(tok string, words []string) bool {
	for _, w := range words {
		if hasPrefixFold(w, tok) && !isStopWord(strings.ToLower(w)) {
			return true
		}
	}
	return false
}

func prefixOfTag(tok string, tags []string) bool {
	for _, t := range tags {
		if strings.HasPrefix(t, tok) {
			return true
		}
	}
	return false
}

func isStopWord(w string) bool {
	_, stop := stopWords[w]
	return stop
}

// categoryPriority breaks score ties: what constrains the agent's next step
// comes before what merely describes the past. Markdown entries and unknown
// categories come last.
var categoryPriority = map[string]int{
	"DECISION":        1,
	"CONSTRAINT":      2,
	"PREFERENCE":      3,
	"RUNBOOK":         4,
	"TECH_DEBT":       5,
	"SESSION_SUMMARY": 6,
	"PROJECT":         7,
	"REFERENCE":       8,
}

func priority(category string) int {
	if p, ok := categoryPriority[category]; ok {
		return p
	}
	return 10
}
