package records

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
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
	if n == 0 {
		// Unlike the plugin, which leaves index.md as it was, the empty
		// index is still written: a store whose last record was retired
		// must not keep offering it.
		fmt.Fprintln(out, "No active memory files found. Rebuilt index.md with 0 entries")
		return nil
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
// attention, in the plugin's report format (config problems added);
// healthy is false when it needs attention.
func IndexHealth(root string, now time.Time, out io.Writer, warn func(string)) (healthy bool, err error) {
	recs, err := Scan(root, false, warn)
	if err != nil {
		return false, err
	}
	type heavyRec struct {
		times int
		line  string
	}
	active := map[string]int{}
	byStatus := map[string]int{}
	var heavy []heavyRec
	var recent []string
	for _, s := range recs {
		r := s.Record
		byStatus[r.Status()]++
		if r.Status() == StatusActive {
			active[Display(r.Category)]++
		}
		if r.TimesUpdated > 5 {
			heavy = append(heavy, heavyRec{r.TimesUpdated, fmt.Sprintf("[%s] %s (updated %d times)", Display(r.Category), r.Title, r.TimesUpdated)})
		}
		if at, err := parseStamp(r.RetiredAt); err == nil && r.Status() == StatusRetired && now.Sub(at) <= 7*24*time.Hour {
			recent = append(recent, fmt.Sprintf("[%s] %s (%d day(s) ago)", Display(r.Category), r.Title, int(now.Sub(at).Hours()/24)))
		}
	}
	fmt.Fprintf(out, "Memory Health Report\n%s\n", strings.Repeat("=", 50))
	fmt.Fprintln(out, "\n--- Entries by Category ---")
	if len(active) == 0 {
		fmt.Fprintln(out, "  No active memories found.")
	} else {
		for _, c := range slices.Sorted(maps.Keys(active)) {
			fmt.Fprintf(out, "  %s: %d\n", c, active[c])
		}
		fmt.Fprintf(out, "  TOTAL (active): %d\n", byStatus[StatusActive])
	}
	if n := byStatus[StatusRetired]; n > 0 {
		fmt.Fprintf(out, "  Retired: %d\n", n)
	}
	if n := byStatus[StatusArchived]; n > 0 {
		fmt.Fprintf(out, "  Archived: %d\n", n)
	}
	sort.SliceStable(heavy, func(i, j int) bool { return heavy[i].times > heavy[j].times })
	heavyLines := make([]string, len(heavy))
	for i, h := range heavy {
		heavyLines[i] = h.line
	}
	section(out, "Heavily Updated (times_updated > 5)", heavyLines)
	section(out, "Recent Retirements (last 7 days)", recent)

	var issues []string
	fmt.Fprintln(out, "\n--- Index Sync Status ---")
	d, derr := IndexDrift(root, nil)
	switch {
	case errors.Is(derr, ErrNoIndex):
		fmt.Fprintln(out, "  WARNING: index.md does not exist!")
		issues = append(issues, "Index out of sync or missing")
	case derr != nil:
		return false, derr
	case len(d.Missing)+len(d.Stale) == 0:
		fmt.Fprintf(out, "  Index is in sync (%d entries).\n", byStatus[StatusActive])
	default:
		listUnder(out, "FILES MISSING FROM INDEX", "+", d.Missing)
		listUnder(out, "STALE INDEX ENTRIES", "-", d.Stale)
		fmt.Fprintln(out, "  Run --rebuild to fix.")
		issues = append(issues, "Index out of sync or missing")
	}
	if len(heavy) > 0 {
		issues = append(issues, fmt.Sprintf("%d heavily-updated memories (consider reviewing)", len(heavy)))
	}
	if cfg, err := LoadConfig(root); err != nil {
		issues = append(issues, err.Error())
	} else {
		for _, p := range cfg.Problems {
			issues = append(issues, ConfigFile+": "+p)
		}
	}
	fmt.Fprintln(out, "\n--- Summary ---")
	if len(issues) == 0 {
		fmt.Fprintln(out, "  Health: GOOD")
		return true, nil
	}
	fmt.Fprintln(out, "  Health: NEEDS ATTENTION")
	for _, is := range issues {
		fmt.Fprintf(out, "    - %s\n", is)
	}
	return false, nil
}

func listUnder(out io.Writer, title, mark string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(out, "  %s (%d):\n", title, len(items))
	for _, it := range items {
		fmt.Fprintf(out, "    %s %s\n", mark, it)
	}
}

func section(out io.Writer, title string, items []string) {
	fmt.Fprintf(out, "\n--- %s ---\n", title)
	if len(items) == 0 {
		fmt.Fprintln(out, "  None.")
	}
	for _, it := range items {
		fmt.Fprintf(out, "  %s\n", it)
	}
}
