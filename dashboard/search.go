package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/zylos/zylos-memory/tiers/fulltext"
)

// maxQueryText bounds the words searched for.
const maxQueryText = 500

type searchHit struct {
	fulltext.Hit
	Link string
}

type searchData struct {
	Query string
	Tier  string
	Tiers []string
	Hits  []searchHit
	Err   string
	Done  bool
}

// search runs the full-text search (?q=&tier=) over the index as it is.
func (s *site) search(r *http.Request) (page, error) {
	q := r.URL.Query()
	d := searchData{Query: q.Get("q"), Tier: q.Get("tier"), Tiers: fulltext.Tiers}
	if len(d.Query) > maxQueryText {
		return page{}, badRequest(fmt.Sprintf("The query is %d bytes long; at most %d are searched.", len(d.Query), maxQueryText))
	}
	if d.Tier != "" && !slices.Contains(fulltext.Tiers, d.Tier) {
		return page{}, badRequest(fmt.Sprintf("Tier %q: choose from %s.", clip(d.Tier, 40), strings.Join(fulltext.Tiers, ", ")))
	}
	if strings.TrimSpace(d.Query) == "" {
		return page{Name: "search", Title: "Search", Data: d}, nil
	}
	d.Done = true
	query := fulltext.Query{Text: d.Query, Limit: 30, Now: s.o.Now()}
	if d.Tier != "" {
		query.Tiers = []string{d.Tier}
	}
	ix, err := s.openIndex()
	if err != nil {
		d.Err = err.Error()
		return page{Name: "search", Title: "Search", Data: d}, nil
	}
	defer ix.Close()
	hits, err := ix.Search(r.Context(), query)
	switch {
	case errors.Is(err, fulltext.ErrNoTerms):
		d.Err = "The query has no words to search for."
	case err != nil:
		d.Err = err.Error()
	}
	for _, h := range hits {
		d.Hits = append(d.Hits, searchHit{Hit: h, Link: citeLink(h)})
	}
	return page{Name: "search", Title: "Search: " + clip(d.Query, 60), Data: d}, nil
}

// citeLink is the dashboard page a hit's citation opens: the message of a
// C4 hit, the entry page of a record or an entry, the day (at its line) of
// a session log.
func citeLink(h fulltext.Hit) string {
	switch {
	case h.Tier == fulltext.TierC4:
		return "message?id=" + strconv.FormatInt(int64(h.Line), 10)
	case h.Tier == fulltext.TierRecords:
		return "entry?path=" + url.QueryEscape(h.Path)
	case h.Path == "":
		return ""
	}
	name := h.Path[strings.LastIndexByte(h.Path, '/')+1:]
	if day, ok := logDayOf(name); ok || strings.HasSuffix(h.Path, "/current.md") {
		if !ok {
			day = h.Date
		}
		return fmt.Sprintf("day?date=%s#L%d", url.QueryEscape(day), h.Line)
	}
	return fmt.Sprintf("entry?path=%s&line=%d", url.QueryEscape(h.Path), h.Line)
}
