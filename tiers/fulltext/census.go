package fulltext

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrNotBuilt reports an index that is missing, damaged or of another
// schema, to a reader that will not build it.
var ErrNotBuilt = errors.New("search index is missing or must be rebuilt (run: zylos-memory reindex)")

// OpenRead opens the index of h as it is: it never builds or updates it,
// so a reader (the dashboard) costs the hooks no lock of theirs. An index
// that must be rebuilt is ErrNotBuilt.
func OpenRead(h Scope, busy time.Duration) (*Index, error) {
	ix, err := openIndex(h, h.DBPath(), busy)
	if errors.Is(err, errStale) {
		return nil, ErrNotBuilt
	}
	return ix, err
}

// Count is how many documents of one tier share a category and status.
type Count struct {
	Tier, Category, Status string
	N                      int
}

// Census counts the documents of the records and reference tiers by
// category and status. It walks only those tiers' paths (an index range),
// never the sessions or C4 documents.
func (ix *Index) Census(ctx context.Context) ([]Count, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT tier, category, status, count(*) FROM docs
 WHERE (path >= ? AND path < ?) OR (path >= ? AND path < ?) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
		append(prefixRange(ix.scope.rel(ix.scope.Root)), prefixRange(ix.scope.rel(ix.scope.Layout.ReferenceDir()))...)...)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	defer rows.Close()
	var out []Count
	for rows.Next() {
		var c Count
		if err := rows.Scan(&c.Tier, &c.Category, &c.Status, &c.N); err != nil {
			return nil, fmt.Errorf("search index: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Doc is one indexed document as a listing shows it.
type Doc struct {
	Path     string // relative to the home, forward slashes
	Line     int
	Tier     string
	Category string
	Status   string
	Title    string
	Day      string
}

// Listing selects documents below a directory of the home.
type Listing struct {
	Dir      string // relative to the home: memory/records or memory/reference/decisions.md
	Category string // "": any
	Status   string // "": any
	Offset   int
	Limit    int
}

// Documents lists the documents of q in path and line order, and how many
// match in all.
func (ix *Index) Documents(ctx context.Context, q Listing) ([]Doc, int, error) {
	where := `path >= ? AND path < ?`
	args := prefixRange(strings.TrimSuffix(q.Dir, "/"))
	if strings.HasSuffix(q.Dir, ".md") || strings.HasSuffix(q.Dir, ".json") {
		where, args = `path = ?`, []any{q.Dir}
	}
	if q.Category != "" {
		where += ` AND category = ?`
		args = append(args, q.Category)
	}
	if q.Status != "" {
		where += ` AND status = ?`
		args = append(args, q.Status)
	}
	var total int
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM docs WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("search index: %w", err)
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT path, line, tier, category, status, title, day FROM docs WHERE `+where+
		` ORDER BY path, line LIMIT ? OFFSET ?`, append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("search index: %w", err)
	}
	defer rows.Close()
	var out []Doc
	for rows.Next() {
		var d Doc
		if err := rows.Scan(&d.Path, &d.Line, &d.Tier, &d.Category, &d.Status, &d.Title, &d.Day); err != nil {
			return nil, 0, fmt.Errorf("search index: %w", err)
		}
		out = append(out, d)
	}
	return out, total, rows.Err()
}

// DayLines is how many lines the index read of one dated session log.
type DayLines struct {
	Day   string // YYYY-MM-DD
	Path  string // relative to the home
	Lines int
}

// LogLines are the dated session logs of the sessions and archive tiers
// with their line counts, as the index last read them.
func (ix *Index) LogLines(ctx context.Context) ([]DayLines, error) {
	var out []DayLines
	for _, dir := range []string{ix.scope.Layout.SessionsDir(), ix.scope.Layout.ArchiveDir()} {
		rows, err := ix.db.QueryContext(ctx, `SELECT path, line FROM files WHERE path >= ? AND path < ?`,
			prefixRange(ix.scope.rel(dir))...)
		if err != nil {
			return nil, fmt.Errorf("search index: %w", err)
		}
		for rows.Next() {
			var d DayLines
			if err := rows.Scan(&d.Path, &d.Lines); err != nil {
				rows.Close()
				return nil, fmt.Errorf("search index: %w", err)
			}
			if d.Day = logDay(d.Path); d.Day != "" {
				out = append(out, d)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("search index: %w", err)
		}
	}
	return out, nil
}

// prefixRange bounds the paths below dir: "dir/" up to "dir0", the next
// byte after '/', so an index on path answers it.
func prefixRange(dir string) []any { return []any{dir + "/", dir + "0"} }

// FileSizes are the sizes of the files of the home the index last read
// (every tier but C4), by path relative to the home.
func (ix *Index) FileSizes(ctx context.Context) (map[string]int64, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT path, size FROM files`)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	defer rows.Close()
	sizes := map[string]int64{}
	for rows.Next() {
		var path string
		var size int64
		if err := rows.Scan(&path, &size); err != nil {
			return nil, fmt.Errorf("search index: %w", err)
		}
		sizes[path] = size
	}
	return sizes, rows.Err()
}
