package recall

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/records"
)

// DefaultSearchLimit is how many results search shows without --limit.
const DefaultSearchLimit = 10

// SearchOptions are the inputs of an on-demand search.
type SearchOptions struct {
	Query  string
	Root   string
	Layout tiers.Layout
	Now    time.Time
	// IncludeArchive adds archived records and the markdown archive;
	// IncludeRetired adds retired records. Both cost a read of every record
	// file, which is why retrieval never does it.
	IncludeArchive bool
	IncludeRetired bool
	Limit          int
	Warn           io.Writer
}

// Search ranks active records, the reference tier and, on request, retired
// and archived records and the markdown archive, by the retrieval score.
func Search(opts SearchOptions) ([]Hit, error) {
	tokens := Tokenize(opts.Query)
	if len(tokens) == 0 {
		return nil, fmt.Errorf("query %q has no searchable words (3+ letters, not stop words)", opts.Query)
	}
	q := newQuery(tokens)
	hits := recordHits(opts.Root, q, warnFunc(opts.Warn), 0)
	if opts.IncludeArchive || opts.IncludeRetired {
		hits = append(hits, q.scoreHits(inactiveHits(opts))...)
	}
	hits = append(hits, referenceHits(opts.Layout, opts.IncludeRetired, q, 0)...)
	if opts.IncludeArchive {
		hits = append(hits, archiveHits(opts.Layout, opts.IncludeRetired, q)...)
	}
	return rank(hits, opts.Now, opts.Limit), nil
}

// inactiveHits are the retired and/or archived records, found by reading
// every record file since the index lists active records only.
func inactiveHits(opts SearchOptions) []Hit {
	if !isDir(opts.Root) {
		return nil
	}
	scanned, err := records.Scan(opts.Root, false, warnFunc(opts.Warn))
	if err != nil {
		return nil
	}
	var hits []Hit
	for _, s := range scanned {
		st := s.Record.Status()
		if st == records.StatusRetired && opts.IncludeRetired || st == records.StatusArchived && opts.IncludeArchive {
			e := records.EntryOf(opts.Root, s.Abs, s.Record)
			hits = append(hits, Hit{Category: records.Display(e.Category), Title: e.Title,
				Path: e.Path, Tags: e.Tags, Status: st})
		}
	}
	return hits
}

// archiveHits are the entries of the markdown archive, any depth below it.
func archiveHits(l tiers.Layout, withRetired bool, q query) []Hit {
	var hits []Hit
	_ = filepath.WalkDir(l.ArchiveDir(), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != l.ArchiveDir() {
				return filepath.SkipDir
			}
			hits = append(hits, markdownHits(p, l.ZylosDir, withRetired, q)...)
		}
		return nil
	})
	return hits
}

// WriteSearch prints ranked hits as text (one per line, best first) or as
// a JSON array.
func WriteSearch(w io.Writer, query string, hits []Hit, asJSON bool) error {
	if asJSON {
		if hits == nil {
			hits = []Hit{}
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(hits)
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
		if h.Status != "" && h.Status != records.StatusActive {
			status = " (" + h.Status + ")"
		}
		fmt.Fprintf(w, "%3d  [%s] %s -> %s%s\n", h.Score, h.Category, records.SanitizeTitle(h.Title), h.Path, status)
	}
	return nil
}
