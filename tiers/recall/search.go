package recall

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/fulltext"
	"github.com/zylos/zylos-memory/tiers/records"
)

// DefaultSearchLimit is how many results search shows without --limit.
const DefaultSearchLimit = 10

// SearchOptions are the inputs of `records search`.
type SearchOptions struct {
	Query  string
	Root   string
	Layout tiers.Layout
	// Conversations opens the home's conversation log for the index's
	// update (see fulltext.Scope); nil leaves it out.
	Conversations fulltext.OpenConversations
	Now           time.Time
	// IncludeArchive adds archived records and the markdown archive;
	// IncludeRetired adds retired records and superseded decisions.
	IncludeArchive bool
	IncludeRetired bool
	Limit          int
	Warn           io.Writer
}

// Hit is one memory `records search` lists: a record or a markdown entry.
type Hit struct {
	Category string   `json:"category"`
	Title    string   `json:"title"`
	Path     string   `json:"path"` // as cited: relative record path, or file.md#Lline
	Tags     []string `json:"tags,omitempty"`
	Status   string   `json:"status,omitempty"` // retired or archived; omitted when active
	Score    int      `json:"score"`            // BM25 relevance times ten, rounded, at least 1
}

// Search is `records search`: the records and the reference tier (and,
// on request, the archive) ranked by the recall index, in the answer
// format records search has always had.
func Search(ctx context.Context, opts SearchOptions) ([]Hit, error) {
	q := fulltext.Query{Text: opts.Query, Tiers: []string{fulltext.TierRecords, fulltext.TierReference},
		IncludeRetired: opts.IncludeRetired, IncludeArchived: opts.IncludeArchive, Limit: opts.Limit, Now: opts.Now}
	if opts.IncludeArchive {
		q.Tiers = append(q.Tiers, fulltext.TierArchive)
	}
	found, err := searchIndex(ctx, fulltext.ScopeOf(opts.Layout, opts.Root, opts.Conversations), q, opts.Warn)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(found))
	for _, f := range found {
		h := Hit{Category: f.Category, Title: f.Title, Path: f.Path, Tags: f.Tags, Score: max(1, int(math.Round(f.Score*10)))}
		if f.Tier != fulltext.TierRecords {
			h.Path = fmt.Sprintf("%s#L%d", f.Path, f.Line)
		}
		if f.Status != records.StatusActive {
			h.Status = f.Status
		}
		if h.Title == "" {
			h.Title = f.Excerpt
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// searchIndex opens the index fresh and runs q; a query with nothing to
// search for is said as such.
func searchIndex(ctx context.Context, h fulltext.Scope, q fulltext.Query, warn io.Writer) ([]fulltext.Hit, error) {
	if _, err := fulltext.Terms(q.Text); err != nil {
		return nil, fmt.Errorf("query %q: %w", q.Text, err)
	}
	ix, warnings, err := fulltext.OpenFresh(ctx, h, fulltext.Options{})
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if warn != nil {
		for _, w := range warnings {
			fmt.Fprintln(warn, "zylos-memory: warning:", w)
		}
	}
	hits, err := ix.Search(ctx, q)
	if errors.Is(err, fulltext.ErrNoTerms) {
		return nil, fmt.Errorf("query %q: %w", q.Text, err)
	}
	return hits, err
}

// WriteSearch prints ranked hits as text (one per line, best first) or as
// a JSON array.
func WriteSearch(w io.Writer, query string, hits []Hit, asJSON bool) error {
	if asJSON {
		return fulltext.WriteJSONList(w, hits)
	}
	if len(hits) == 0 {
		_, err := fmt.Fprintf(w, "No memories match %q\n", query)
		return err
	}
	noun := "memories match"
	if len(hits) == 1 {
		noun = "memory matches"
	}
	fmt.Fprintf(w, "%d %s %q\n", len(hits), noun, query)
	for _, h := range hits {
		status := ""
		if h.Status != "" {
			status = " (" + h.Status + ")"
		}
		fmt.Fprintf(w, "%3d  [%s] %s -> %s%s\n", h.Score, h.Category, records.SanitizeTitle(h.Title), h.Path, status)
	}
	return nil
}

// oneLine folds whitespace runs into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
