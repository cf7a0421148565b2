package recall

import (
	"slices"
	"strings"
)

// Points of the candidate score (the claude-memory plugin): a token equal to a title word,
// equal to a tag, or (at four characters or more) a prefix of either.
const (
	titlePoints  = 2
	tagPoints    = 3
	prefixPoints = 1
	minPrefixLen = 4
	candidateMin = 3 // a candidate needs at least one tag or two title hits
)

// Score is the text score of one entry for the tokens of new information.
// A token equal to a title word and to a tag earns both; a prefix point
// only goes to a token that matched nothing exactly.
func Score(tokens map[string]struct{}, title string, tags []string) int {
	var words []string
	for w := range Tokenize(title) {
		words = append(words, w)
	}
	hasPrefix := func(list []string, tok string) bool {
		return slices.ContainsFunc(list, func(w string) bool { return strings.HasPrefix(w, tok) })
	}
	score := 0
	for tok := range tokens {
		inTitle, inTags := slices.Contains(words, tok), slices.Contains(tags, tok)
		if inTitle {
			score += titlePoints
		}
		if inTags {
			score += tagPoints
		}
		if !inTitle && !inTags && len(tok) >= minPrefixLen && (hasPrefix(words, tok) || hasPrefix(tags, tok)) {
			score += prefixPoints
		}
	}
	return score
}

func isStopWord(w string) bool {
	_, stop := stopWords[w]
	return stop
}
