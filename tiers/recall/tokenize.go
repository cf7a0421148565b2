package recall

import "strings"

// minTokenLen drops tokens of two characters or fewer: they match too much.
const minTokenLen = 3

// stopWords are common English words that say nothing about a memory's topic.
var stopWords = toSet(strings.Fields(`
a an the is was are were be been being am do does did done have has had
i me my we our you your he she it its they them their this that these those
and or but if then else so not no nor of at by for with from into onto to in
on off over under up down out about as than too very can could will would
shall should may might must just also only what which who whom whose when
where why how all any both each few more most other some such own same use
used using get got make made go going there here let please want need like`))

func toSet(words []string) map[string]struct{} {
	set := make(map[string]struct{}, len(words))
	for _, w := range words {
		set[w] = struct{}{}
	}
	return set
}

// Tokenize lowercases s and returns its distinct [a-z0-9]+ runs, without stop
// words and without tokens shorter than three characters.
func Tokenize(s string) map[string]struct{} {
	tokens := map[string]struct{}{}
	forEachWord(strings.ToLower(s), func(w string) {
		if len(w) < minTokenLen {
			return
		}
		if !isStopWord(w) {
			tokens[w] = struct{}{}
		}
	})
	return tokens
}

// forEachWord calls fn for every maximal run of ASCII letters and digits in
// s, in the case s has them. A hand loop, not a regexp: it runs over the
// title of every candidate line of the index on each prompt.
func forEachWord(s string, fn func(string)) {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isWordByte(lowerByte(s[i])) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			fn(s[start:i])
			start = -1
		}
	}
}

func isWordByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

func lowerByte(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
