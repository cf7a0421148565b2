package fulltext

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteJSONList prints items as an indented JSON array, [] when there
// are none, with HTML characters as they are: what --json prints.
func WriteJSONList[T any](w io.Writer, items []T) error {
	if items == nil {
		items = []T{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(items)
}

// WriteHits prints hits as text, best first: for each, where it is cited
// from, its date, tier and (records, entries) category and title, then
// the excerpt on an indented line, then the log's further lines, each
// with its cite. asJSON prints a JSON array instead.
func WriteHits(w io.Writer, query string, hits []Hit, asJSON bool) error {
	if asJSON {
		return WriteJSONList(w, hits)
	}
	if len(hits) == 0 {
		_, err := fmt.Fprintf(w, "Nothing in memory matches %q\n", QueryShown(query))
		return err
	}
	for _, h := range hits {
		head := []string{h.Cite}
		if h.Date != "" {
			head = append(head, h.Date)
		}
		head = append(head, h.Tier)
		if h.Status != statusActive {
			head = append(head, "("+h.Status+")")
		}
		if h.Title != "" {
			head = append(head, fmt.Sprintf("[%s] %s", h.Category, printable(h.Title)))
		}
		if h.Origin != "" {
			head = append(head, "(from "+printable(h.Origin)+")")
		}
		if _, err := fmt.Fprintf(w, "%s\n    %s\n", strings.Join(head, "  "), printable(h.Excerpt)); err != nil {
			return err
		}
		for _, l := range h.Lines {
			if _, err := fmt.Fprintf(w, "    %s  %s\n", l.Cite, printable(l.Excerpt)); err != nil {
				return err
			}
		}
	}
	return nil
}

// queryShownRunes is how much of a query a message repeats.
const queryShownRunes = 80

// QueryShown is query as a message repeats it: a pasted page is cut to
// its start and an ellipsis.
func QueryShown(query string) string {
	if utf8.RuneCountInString(query) <= queryShownRunes {
		return query
	}
	return string([]rune(query)[:queryShownRunes]) + "…"
}

// printable keeps a hit on its lines: control characters (a terminal
// escape in a hand-written log) become spaces.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return ' '
		}
		return r
	}, s)
}
