package fulltext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chinese, Japanese and Korean write words without spaces between them,
// and unicode61 makes one token of each run of such letters: 数据库 in
// 我们决定使用数据库迁移方案 would be found by the whole run only. Each
// document therefore also has a cjk column: the overlapping pairs of
// letters of its CJK runs (我们 们决 决定 ...), a run of one letter as
// itself. A CJK word of the query is searched as its pairs, any of them,
// plus the phrase of them all, so a document holding the whole word ranks
// first; one letter is searched as the start of a pair. Pairs rather than
// SQLite's trigram tokenizer: two-letter words (東京, 数据, 회의) are
// common and a trigram index cannot find them, and pairs find every word
// of three or more as a phrase (see docs/search.md for the measurement).

// isCJK reports a letter of a script written without spaces between
// words: Han, Hiragana, Katakana (with its prolonged sound mark) and
// Hangul (whose words carry particles: 회의록을).
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r == 'ー' || r == '々' || r == '〆'
}

// hasCJK reports whether s holds a CJK letter.
func hasCJK(s string) bool {
	for _, r := range s {
		if isCJK(r) {
			return true
		}
	}
	return false
}

// cjkPairs is the cjk column of a document made of parts: the pairs of
// every CJK run, space separated; "" when there is none.
func cjkPairs(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if !hasCJK(p) {
			continue
		}
		var prev rune
		run := 0
		flush := func() {
			if run == 1 {
				b.WriteRune(prev)
				b.WriteByte(' ')
			}
			run = 0
		}
		for _, r := range p {
			if !isCJK(r) {
				flush()
				continue
			}
			if run > 0 {
				b.WriteRune(prev)
				b.WriteRune(r)
				b.WriteByte(' ')
			}
			prev = r
			run++
		}
		flush()
	}
	return strings.TrimSuffix(b.String(), " ")
}

// cjkPairs3 is cjkPairs as the SQL function cjk_pairs(title, tags, body).
func cjkPairs3(title, tags, body string) string { return cjkPairs(title, tags, body) }

// maxPhraseRunes bounds the CJK words searched as a phrase as well as
// pairs: a longer run is a sentence typed without spaces, not a word.
const maxPhraseRunes = 8

// cjkTerms adds the terms of one CJK run of a query to add, which
// reports false when no more are wanted (cjkTerms then does too): the run
// itself when it is one letter or short enough to be a word, then its
// pairs. A run of megabytes is read only as far as the terms wanted.
func cjkTerms(run string, add func(string) bool) bool {
	n := 0
	for range run {
		if n++; n > maxPhraseRunes {
			break
		}
	}
	if n <= maxPhraseRunes && !add(run) {
		return false
	}
	if n <= 2 {
		return true
	}
	prev := -1
	for i, r := range run {
		if prev >= 0 && !add(run[prev:i+utf8.RuneLen(r)]) {
			return false
		}
		prev = i
	}
	return true
}

// isCJKTerm reports a term made of CJK letters (they are never mixed
// with others in one term).
func isCJKTerm(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return isCJK(r)
}

// cjkMatch is the FTS5 expression of a CJK term, for the cjk column: a
// letter as the start of a pair (or a lone letter), a pair as itself, a
// longer word as the phrase of its pairs.
func cjkMatch(t string) string {
	rs := []rune(t)
	switch len(rs) {
	case 1:
		return `(cjk : "` + t + `"*)`
	case 2:
		return `(cjk : "` + t + `")`
	}
	pairs := make([]string, 0, len(rs)-1)
	for i := 1; i < len(rs); i++ {
		pairs = append(pairs, string(rs[i-1:i+1]))
	}
	return `(cjk : "` + strings.Join(pairs, " ") + `")`
}
