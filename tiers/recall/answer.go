package recall

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zylos/zylos-memory/internal/jsstring"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/fulltext"
	"github.com/zylos/zylos-memory/tiers/records"
)

// The prompt hook's answer carries the words of each memory found, not a
// pointer to them: one line per memory, "- [CATEGORY] Title — what it
// says -> cite", the whole block within the budget. What a memory says is
// its fields in the order that answers (a decision's decision, rationale,
// then context; a project's status and next step; a preference's value),
// a log's best lines with their times, a C4 message; when it must be cut,
// the parts that hold the query's words come first, and the cut falls at
// a word, marked with an ellipsis.

// answerFieldOrder is the order of the fields of a memory's answer, per
// category; other categories use categoryKeyFields, and fields named in
// neither follow in their own order.
var answerFieldOrder = map[string][]string{
	"decision":   {"decision", "rationale", "context"},
	"project":    {"status", "next_step", "next_steps", "next", "notes", "description", "updated"},
	"preference": {"value", "reason", "topic"},
}

// minAnswerRunes is the least of a memory's words worth a line: a
// budget that cannot give each memory that much shows fewer memories.
const minAnswerRunes = 60

// answerItem is one memory of the answer before it is fitted.
type answerItem struct {
	head string   // "[DECISION] Title", escaped
	sep  string   // between head and words: " — " after a title
	cite string   // escaped
	segs []string // what it says, sanitized, not yet escaped
}

// formatAnswers renders the hook's block of hits, best first, within
// budget characters (the block's tags included); ts are the query's
// terms. A hit with no title and no text is left out; "" when nothing is
// left.
func formatAnswers(root, attrs string, hits []fulltext.Hit, ts []string, budget int) string {
	open := fmt.Sprintf("<memory-context source=\"%s/\"%s>\n", injectSafePath(citePath(records.Base(root), root)), attrs)
	const closing = "</memory-context>\n"
	var items []answerItem
	for _, h := range hits {
		if it, ok := answerOf(h); ok {
			items = append(items, it)
		}
	}
	avail := min(budget, tiers.ContextLimit) - runes(open) - runes(closing)
	// the fixed part of each line, and at least a little of its words
	fixed := func(it answerItem) int { return runes("- "+it.head+it.sep+" -> "+it.cite+"\n") + minAnswerRunes }
	for len(items) > 0 {
		need := 0
		for _, it := range items {
			need += fixed(it)
		}
		if need <= avail {
			break
		}
		items = items[:len(items)-1]
	}
	if len(items) == 0 {
		return ""
	}
	shares := fairShares(items, avail, fixed)
	var b strings.Builder
	b.WriteString(open)
	for i, it := range items {
		line := "- " + it.head
		if text := fitText(it.segs, ts, shares[i]); text != "" {
			line += it.sep + text
		}
		b.WriteString(line + " -> " + it.cite + "\n")
	}
	b.WriteString(closing)
	return b.String()
}

// fairShares divides what avail leaves after the lines' fixed parts among
// the items' words: an item that needs less than an equal share keeps
// all of its words, and what it leaves goes to the others.
func fairShares(items []answerItem, avail int, fixed func(answerItem) int) []int {
	left := avail
	want := make([]int, len(items))
	order := make([]int, len(items))
	for i, it := range items {
		left -= fixed(it) - minAnswerRunes
		want[i] = escapedRunes(strings.Join(it.segs, segSep))
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return want[a] - want[b] })
	shares := make([]int, len(items))
	for k, i := range order {
		shares[i] = min(want[i], left/(len(items)-k))
		left -= shares[i]
	}
	return shares
}

// segSep joins the parts of what a memory says.
const segSep = " | "

// answerOf is the line parts of a hit, or false when it has nothing to
// show.
func answerOf(h fulltext.Hit) (answerItem, bool) {
	it := answerItem{cite: injectSafePath(h.Cite), sep: " "}
	title := records.SanitizeTitle(h.Title)
	switch {
	case h.Tier == fulltext.TierC4 || h.Category == "":
		label := strings.ToUpper(h.Tier)
		if h.Date != "" {
			label += " " + h.Date
		}
		it.head = "[" + label + "]"
		for _, text := range append([]string{h.Text}, lineTexts(h.Lines)...) {
			if s := records.SanitizeTitle(strings.ReplaceAll(text, "**", "")); s != "" {
				it.segs = append(it.segs, s)
			}
		}
	default:
		it.head = "[" + injectSafe(h.Category) + "]"
		if title != "" {
			it.head += " " + injectSafe(title)
			it.sep = " — "
		}
		it.segs = fieldSegments(h.Text, strings.ToLower(h.Category), title)
	}
	return it, title != "" || len(it.segs) > 0
}

func lineTexts(ls []fulltext.Line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Text
	}
	return out
}

// fieldSegments are the parts of a record's or an entry's text: its
// fields ("Label: value", in the answer order of category), then its
// other lines. Headings, id comments, empty fields and fields that repeat
// the title or an earlier field say nothing.
func fieldSegments(text, category, title string) []string {
	type field struct {
		key, seg string
	}
	var fields []field
	var free []string
	values := []string{title}
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "<!--") {
			continue
		}
		l = strings.TrimSpace(strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(l, "- "), "* "), "**", ""))
		if name, value, ok := strings.Cut(l, ":"); ok && isFieldName(name) {
			// a value said by an earlier field (a rationale copied from the
			// context) is said once
			if value = records.SanitizeTitle(value); value != "" && !slices.Contains(values, value) {
				key := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "_")
				fields = append(fields, field{key, fieldLabel(name) + ": " + value})
				values = append(values, value)
			}
			continue
		}
		if s := records.SanitizeTitle(l); s != "" {
			free = append(free, s)
		}
	}
	order := answerFieldOrder[category]
	if order == nil {
		order = categoryKeyFields[category]
	}
	rank := func(key string) int {
		if i := slices.Index(order, key); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(fields, func(a, b field) int { return rank(a.key) - rank(b.key) })
	segs := make([]string, 0, len(fields)+len(free))
	for _, f := range fields {
		segs = append(segs, f.seg)
	}
	return append(segs, free...)
}

// isFieldName reports a field name: up to four words of letters.
func isFieldName(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 32 || len(strings.Fields(s)) > 4 {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && r != ' ' && r != '_' && r != '-' {
			return false
		}
	}
	return true
}

// fieldLabel is a field name as shown: next_actions is "Next actions".
func fieldLabel(name string) string {
	name = strings.ReplaceAll(strings.TrimSpace(name), "_", " ")
	r, n := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[n:]
}

// fitText is segs joined and escaped within limit characters: whole when
// it fits, else the segments holding a query word first, the first of
// them from a little before that word, cut at a word with an ellipsis.
func fitText(segs []string, ts []string, limit int) string {
	whole := strings.Join(segs, segSep)
	if escapedRunes(whole) <= limit {
		return records.EscapeXML(whole)
	}
	var hit, rest []string
	for _, s := range segs {
		if fulltext.MatchAt(s, ts) >= 0 {
			hit = append(hit, s)
		} else {
			rest = append(rest, s)
		}
	}
	if len(hit) > 0 {
		hit[0] = fromNear(hit[0], fulltext.MatchAt(hit[0], ts), limit/2, limit/4)
	}
	text := strings.Join(append(hit, rest...), segSep)
	if escapedRunes(text) <= limit {
		return records.EscapeXML(text)
	}
	// escaping lengthens the text: cut the text so that the escaped
	// result fits
	cut := limit - 1
	for cut > 0 {
		out := records.EscapeXML(cutAtWord(text, cut)) + "…"
		if runes(out) <= limit {
			return out
		}
		cut -= max(1, (runes(out)-limit)/2)
	}
	return ""
}

// fromNear is s, or, when byte offset at is more than far characters in,
// s from a word at most before characters ahead of it, with an ellipsis
// for what it leaves out.
func fromNear(s string, at, far, before int) string {
	if at <= 0 || at >= len(s) || jsstring.Len(s[:at]) <= far {
		return s
	}
	start := at
	for n := 0; start > 0 && n < before; n++ {
		_, size := utf8.DecodeLastRuneInString(s[:start])
		start -= size
	}
	if sp := strings.IndexByte(s[start:at], ' '); sp >= 0 {
		start += sp + 1
	}
	return "…" + s[start:]
}

// cutAtWord is the start of s of at most n characters, ended at a word
// boundary when one is near (text without spaces, as CJK, is cut at a
// character), without trailing spaces or separators.
func cutAtWord(s string, n int) string {
	if jsstring.Len(s) <= n {
		return s
	}
	cut := jsstring.Cut(s, n)
	if sp := strings.LastIndexByte(cut, ' '); sp > len(cut)*2/3 {
		cut = cut[:sp]
	}
	return strings.TrimRight(cut, " |;,")
}

// runes counts characters as Claude Code does: UTF-16 code units.
func runes(s string) int { return jsstring.Len(s) }

func escapedRunes(s string) int { return runes(records.EscapeXML(s)) }
