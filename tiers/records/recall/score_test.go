package recall

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

var wordRun = regexp.MustCompile(`[a-z0-9]+`)

// plainScore is seed 003's scoring written the direct way: the title's
// tokens as Tokenize makes them, exact matches, then 4+ character
// prefixes.
func plainScore(q query, title string, tags []string) int {
	var words []string
	for _, w := range wordRun.FindAllString(strings.ToLower(title), -1) {
		if len(w) >= minTokenLen && !isStopWord(w) {
			words = append(words, w)
		}
	}
	hasPrefix := func(list []string, tok string) bool {
		return slices.ContainsFunc(list, func(w string) bool { return strings.HasPrefix(w, tok) })
	}
	score := 0
	for _, tok := range q {
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

// FuzzScore holds the fast scoring (words in their case, stop words
// checked only on a prefix hit) to the direct one.
func FuzzScore(f *testing.F) {
	f.Add("Use JWT for Authentication", "jwt,auth", "how does JWT authentication work")
	f.Add("These THESE notes", "these", "thes notes")
	f.Add("\u212aafka Queue", "", "kafka queue")
	f.Add("DB on S3", "", "db s3 dbs3")
	f.Fuzz(func(t *testing.T, title, rawTags, prompt string) {
		q := newQuery(Tokenize(prompt))
		var tags []string
		if rawTags != "" {
			tags = strings.Split(rawTags, ",")
		}
		if got, want := q.score(title, tags), plainScore(q, title, tags); got != want {
			t.Errorf("score(%q, %q) for %q = %d, want %d", title, tags, prompt, got, want)
		}
	})
}
