package records

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// IndexRebuild rewrites index.md from the files under the lock and
// reports the count, as `records index --rebuild`.
func IndexRebuild(root string, out io.Writer, warn func(string)) error {
	lock, err := AcquireLock(root)
	if err != nil {
		return err
	}
	defer lock.Release()
	n, err := RebuildIndex(root, warn)
	if err != nil {
		return err
	}
	if err := clearPending(root); err != nil {
		return err
	}
	fmt.Fprintf(out, "Rebuilt index.md with %d entries\n", n)
	return nil
}

// ErrNoIndex is returned when an operation needs an index.md that is
// missing.
var ErrNoIndex = errors.New("index.md not found; run records index --rebuild")

// Drift is how index.md and the active files disagree.
type Drift struct {
	Missing []string // active files with no index line
	Stale   []string // index lines with no active file
}

// IndexDrift compares index.md with the active record files.
func IndexDrift(root string, warn func(string)) (Drift, error) {
	if err := repairIfPending(root, warn); err != nil {
		return Drift{}, err
	}
	es, err := ReadIndex(root)
	if errors.Is(err, fs.ErrNotExist) {
		return Drift{}, ErrNoIndex
	}
	if err != nil {
		return Drift{}, fmt.Errorf("read index: %w", err)
	}
	recs, err := Scan(root, true, warn)
	if err != nil {
		return Drift{}, err
	}
	var indexed, files []string
	for _, e := range es {
		indexed = append(indexed, e.Path)
	}
	for _, e := range Entries(root, recs) {
		files = append(files, e.Path)
	}
	d := Drift{Missing: sortedSet(minus(files, indexed)), Stale: sortedSet(minus(indexed, files))}
	return d, nil
}

// IndexValidate prints the drift; ok is false when there is any.
func IndexValidate(root string, out io.Writer, warn func(string)) (ok bool, err error) {
	d, err := IndexDrift(root, warn)
	if err != nil {
		return false, err
	}
	if len(d.Missing)+len(d.Stale) == 0 {
		fmt.Fprintln(out, "Index is valid")
		return true, nil
	}
	printList(out, "Files NOT in index.md", d.Missing)
	printList(out, "Index entries with NO matching file", d.Stale)
	return false, nil
}

func printList(out io.Writer, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(out, "%s (%d):\n", title, len(items))
	for _, it := range items {
		fmt.Fprintf(out, "  - %s\n", it)
	}
}

// IndexQuery prints the index lines containing keyword (case-insensitive
// substring of the whole line).
func IndexQuery(root, keyword string, out io.Writer) error {
	data, err := regfile.ReadFile(filepath.Join(root, IndexFile))
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNoIndex
	}
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	kw := []byte(strings.ToLower(keyword))
	var hits [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte("- [")) && bytes.Contains(bytes.ToLower(line), kw) {
			hits = append(hits, append([]byte(nil), line...))
		}
	}
	if len(hits) == 0 {
		fmt.Fprintf(out, "No matches for %q\n", keyword)
		return nil
	}
	fmt.Fprintf(out, "Found %d matches for %q:\n", len(hits), keyword)
	for _, h := range hits {
		fmt.Fprintf(out, "%s\n", h)
	}
	return nil
}

// IndexHealth prints the store's statistics and whether it needs
// attention; healthy is false when it does.
func IndexHealth(root string, now time.Time, out io.Writer, warn func(string)) (healthy bool, err error) {
	recs, err := Scan(root, false, warn)
	if err != nil {
		return false, err
	}
	counts := map[string]map[string]int{}
	var heavy, recent []string
	for _, s := range recs {
		if counts[s.Record.Category] == nil {
			counts[s.Record.Category] = map[string]int{}
		}
		counts[s.Record.Category][s.Record.Status()]++
		if s.Record.TimesUpdated > 5 {
			heavy = append(heavy, fmt.Sprintf("%s (%d updates)", IndexPath(root, s.Abs), s.Record.TimesUpdated))
		}
		if at, err := parseStamp(s.Record.RetiredAt); err == nil && s.Record.Status() == StatusRetired && now.Sub(at) <= 7*24*time.Hour {
			recent = append(recent, fmt.Sprintf("%s (retired %s)", IndexPath(root, s.Abs), s.Record.RetiredAt))
		}
	}
	var issues []string
	if cfg, err := LoadConfig(root); err != nil {
		issues = append(issues, err.Error())
	} else {
		for _, p := range cfg.Problems {
			issues = append(issues, ConfigFile+": "+p)
		}
	}
	fmt.Fprintln(out, "## Entries by Category")
	total := map[string]int{}
	for _, c := range Categories {
		n := counts[c]
		fmt.Fprintf(out, "  %-16s active=%d retired=%d archived=%d\n", Display(c), n[StatusActive], n[StatusRetired], n[StatusArchived])
		for k, v := range n {
			total[k] += v
		}
	}
	sort.Strings(heavy)
	sort.Strings(recent)
	section(out, "Heavily Updated (times_updated > 5)", heavy)
	section(out, "Recent Retirements (last 7 days)", recent)
	fmt.Fprintln(out, "\n## Index Sync Status")
	d, derr := IndexDrift(root, nil)
	switch {
	case errors.Is(derr, ErrNoIndex):
		fmt.Fprintln(out, "  index.md missing")
		issues = append(issues, "index.md missing (run --rebuild)")
	case derr != nil:
		return false, derr
	case len(d.Missing)+len(d.Stale) == 0:
		fmt.Fprintln(out, "  in sync")
	default:
		fmt.Fprintf(out, "  %d missing from index, %d stale in index\n", len(d.Missing), len(d.Stale))
		issues = append(issues, "index out of sync (run --rebuild)")
	}
	fmt.Fprintln(out, "\n## Summary")
	fmt.Fprintf(out, "  total=%d active=%d retired=%d archived=%d\n",
		total[StatusActive]+total[StatusRetired]+total[StatusArchived], total[StatusActive], total[StatusRetired], total[StatusArchived])
	if len(issues) == 0 {
		fmt.Fprintln(out, "  Health: GOOD")
		return true, nil
	}
	fmt.Fprintln(out, "  Health: NEEDS ATTENTION")
	for _, is := range issues {
		fmt.Fprintf(out, "  - %s\n", is)
	}
	return false, nil
}

func section(out io.Writer, title string, items []string) {
	fmt.Fprintf(out, "\n## %s\n", title)
	if len(items) == 0 {
		fmt.Fprintln(out, "  (none)")
	}
	for _, it := range items {
		fmt.Fprintf(out, "  - %s\n", it)
	}
}
