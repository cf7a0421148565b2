package journal

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/zylos/zylos-memory/tiers/entries"
)

// Select narrows q to what arg names, as a user types it (see Rel): a
// file, a record (its own file), or one reference entry (its file's
// changes that changed the entry).
func (j *Journal) Select(q *Query, arg, cwd string) error {
	rel, byID, err := j.resolve(arg, cwd)
	if err != nil {
		return err
	}
	q.Path = rel
	if byID && strings.HasSuffix(rel, ".md") { // not a record: an entry of a reference file
		q.Entry = arg
	}
	return nil
}

// entryBatch is how many changes one git cat-file reads the versions of.
const entryBatch = 64

// entryHistory is History for q.Entry: of the changes to q.Path, those
// after which the entry's text differs from what it was before.
func (j *Journal) entryHistory(ctx context.Context, q Query) ([]Entry, error) {
	id, limit := q.Entry, q.Limit
	q.Entry, q.Limit = "", 0
	all, err := j.History(ctx, q)
	if err != nil {
		return nil, err
	}
	var kept []Entry
	for start := 0; start < len(all); start += entryBatch {
		batch := all[start:min(start+entryBatch, len(all))]
		var specs strings.Builder
		for _, e := range batch {
			fmt.Fprintf(&specs, "%s:%s\n%s^:%s\n", e.Rev, q.Path, e.Rev, q.Path)
		}
		out, err := j.git(ctx, []byte(specs.String()), "cat-file", "--batch")
		if err != nil {
			return nil, err
		}
		versions := parseBatch(out)
		if len(versions) != 2*len(batch) {
			return nil, fmt.Errorf("git cat-file: %d versions for %d changes", len(versions), len(batch))
		}
		for i, e := range batch {
			if entryText(q.Path, versions[2*i], id) == entryText(q.Path, versions[2*i+1], id) {
				continue
			}
			if kept = append(kept, e); len(kept) == limit {
				return kept, nil
			}
		}
	}
	return kept, nil
}

// parseBatch splits git cat-file --batch output into the contents it
// printed, "" for an object that is missing (a file before it existed).
func parseBatch(out string) []string {
	var blobs []string
	for out != "" {
		header, rest, ok := strings.Cut(out, "\n")
		if !ok {
			break
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[1] == "missing" {
			blobs, out = append(blobs, ""), rest
			continue
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size > len(rest) {
			break
		}
		blobs = append(blobs, rest[:size])
		out = strings.TrimPrefix(rest[size:], "\n")
	}
	return blobs
}

// entryText is the text of the entry with id in a version of a file, ""
// when it has none.
func entryText(name, src, id string) string {
	if !strings.Contains(src, entries.IDComment(id)) {
		return ""
	}
	for _, e := range entries.Parse(name, []byte(src)) {
		if got, _ := entries.Identity(e.Text); got == id {
			return e.Text
		}
	}
	return ""
}
