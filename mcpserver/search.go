package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zylos/zylos-memory/tiers/fulltext"
)

type searchInput struct {
	Query string   `json:"query" jsonschema:"words to find"`
	Tiers []string `json:"tiers,omitempty" jsonschema:"only these tiers: sessions, reference, records, archive, c4"`
	Since string   `json:"since,omitempty" jsonschema:"only what is dated on or after YYYY-MM-DD"`
	Until string   `json:"until,omitempty" jsonschema:"only what is dated on or before YYYY-MM-DD"`
	Limit int      `json:"limit,omitempty" jsonschema:"most hits, default 10, at most 50"`
}

// Hits a search answers by default and at most: each costs the model's
// context.
const (
	defaultHits = 10
	maxHits     = 50
	// maxQuery bounds a query: a few words find a memory, and a
	// megabyte of them costs seconds of ranking.
	maxQuery = 4 << 10
)

// search is the search command's search, answered in its text form.
func (h call) search(ctx context.Context, in searchInput) (string, error) {
	if len(in.Query) > maxQuery {
		return "", fmt.Errorf("query is %d bytes; give a few words (at most %d bytes)", len(in.Query), maxQuery)
	}
	q := fulltext.Query{Text: in.Query, Tiers: in.Tiers, Since: in.Since, Until: in.Until, Limit: in.Limit, Now: h.Now()}
	if err := q.Check(); err != nil {
		return "", errors.New(strings.ReplaceAll(strings.ReplaceAll(err.Error(), "--limit", "limit"), "QUERY", "query"))
	}
	if q.Limit == 0 {
		q.Limit = defaultHits
	}
	q.Limit = min(q.Limit, maxHits)
	ix, warnings, err := fulltext.OpenFresh(ctx, h.Index(""), fulltext.Options{})
	if err != nil {
		return "", err
	}
	defer ix.Close()
	for _, w := range warnings {
		h.logf("warning: %s", w)
	}
	hits, err := ix.Search(ctx, q)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := fulltext.WriteHits(&b, q.Text, hits, false); err != nil {
		return "", err
	}
	return b.String(), nil
}
