package dashboard

import (
	"context"
	"strconv"

	"github.com/zylos/zylos-memory/tiers/journal"
)

// Change is a journal entry as a page lists it: its first maxFiles paths,
// and how many more.
type Change struct {
	journal.Entry
	Files     []string
	MoreFiles int
}

// maxFiles bounds the files listed with a change: the first commit of a
// journal holds the whole memory.
const maxFiles = 20

// maxDiff bounds a diff shown on a page.
const maxDiff = 1 << 20

func changeOf(e journal.Entry) Change {
	paths := make([]string, len(e.Paths))
	for i, p := range e.Paths {
		paths[i] = unquoteGitPath(p)
	}
	e.Paths = paths
	c := Change{Entry: e, Files: e.Paths[:min(len(e.Paths), maxFiles)]}
	c.MoreFiles = len(e.Paths) - len(c.Files)
	return c
}

// unquoteGitPath is a path as git lists it, in C quotes when it holds a
// quote, a backslash or a control character ("say \"hi\".md"), as the
// file's own name, which the links of a page carry.
func unquoteGitPath(p string) string {
	if len(p) < 2 || p[0] != '"' || p[len(p)-1] != '"' {
		return p
	}
	if u, err := strconv.Unquote(p); err == nil {
		return u
	}
	return p
}

// Short is the abbreviated revision.
func (c Change) Short() string { return c.Rev[:min(len(c.Rev), 10)] }

// changes lists the journal's changes q selects, with their paths.
func (s *site) changes(ctx context.Context, q journal.Query) ([]Change, error) {
	if q.Detail == journal.Counts {
		q.Detail = journal.Names // a page lists paths, never line counts
	}
	entries, err := s.journal(ctx).History(ctx, q)
	cs := make([]Change, len(entries))
	for i, e := range entries {
		cs[i] = changeOf(e)
	}
	return cs, err
}

// changeWithDiff is one change of the journal with its diff, cut at
// maxDiff.
func (s *site) changeWithDiff(ctx context.Context, rev string) (Change, string, error) {
	cs, err := s.changes(ctx, journal.Query{Rev: rev})
	if err != nil {
		return Change{}, "", err
	}
	if len(cs) != 1 {
		return Change{}, "", notFound("No change " + rev + " in the journal.")
	}
	diff, cut, err := s.journal(ctx).Patch(ctx, cs[0].Rev, maxDiff)
	return cs[0], withCut(diff, cut), err
}

// withCut marks a diff cut at maxDiff as such.
func withCut(diff string, cut bool) string {
	if cut {
		diff += "\n[the diff is cut at 1 MB]\n"
	}
	return diff
}

// isRev reports a revision the dashboard accepts: an object name in lower
// case hex, never an option or an expression.
func isRev(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && (s[i] < 'a' || s[i] > 'f') {
			return false
		}
	}
	return true
}

// journal is the journal of the page's home, which its reads go through.
func (s *site) journal(ctx context.Context) *journal.Journal { return s.home(ctx).Journal() }
