package dashboard

import (
	"context"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/journal"
)

type timelineData struct {
	Filter  journal.Query
	Changes []Change
	Err     string
}

// timeline lists the journal's changes, filtered by session, source and
// file (?session=&source=&file=, the file relative to memory/).
func (s *site) timeline(r *http.Request) (page, error) {
	q := r.URL.Query()
	f := journal.Query{Session: q.Get("session"), Source: journal.Source(q.Get("source")), Path: q.Get("file"), Limit: 100}
	for _, v := range []string{f.Session, string(f.Source)} {
		if len(v) > 200 || !utf8.ValidString(v) || strings.ContainsAny(v, "\x00\n") {
			return page{}, badRequest("A filter must be one line of text.")
		}
	}
	if f.Path != "" {
		if err := journalPath(f.Path); err != nil {
			return page{}, err
		}
	}
	d := timelineData{Filter: f}
	d.Changes, d.Err = s.lastChanges(r.Context(), f)
	return page{Name: "timeline", Title: "Timeline", Data: d}, nil
}

// journalPath checks a file named relative to memory/ for a journal
// query: the file may be gone, so only its form is checked, as memPath
// does for the files that exist.
func journalPath(rel string) error {
	switch {
	case len(rel) > 1024 || !utf8.ValidString(rel) || strings.ContainsRune(rel, 0),
		path.IsAbs(rel), path.Clean(rel) != rel, rel == "..", strings.HasPrefix(rel, "../"),
		strings.HasPrefix(rel, ".") || strings.Contains(rel, "/."):
		return badRequest(fmt.Sprintf("File %q refused: want a path below memory/, such as reference/decisions.md.", clip(rel, 200)))
	}
	return nil
}

type changeData struct {
	Change Change
	Diff   string
}

// change shows one journal change with its diff (?rev=).
func (s *site) change(r *http.Request) (page, error) {
	rev := r.URL.Query().Get("rev")
	if !isRev(rev) {
		return page{}, badRequest(fmt.Sprintf("Change %q: want a commit id (hex).", clip(rev, 80)))
	}
	c, diff, err := s.changeWithDiff(r.Context(), rev)
	if err != nil {
		return page{}, unreadable(err)
	}
	return page{Name: "change", Title: "Change " + c.Short(), Data: changeData{c, diff}}, nil
}

// tierOf is the tier a path relative to memory/ belongs to, for charts.
func tierOf(rel string) string {
	first, _, nested := strings.Cut(rel, "/")
	switch {
	case !nested && slices.Contains(tiers.AllInjected(), first):
		return "core"
	case nested && (first == "reference" || first == "sessions" || first == "archive" || first == "records" || first == "users"):
		return first
	}
	return "other"
}

// chartPoints is how many changes the size chart samples.
const chartPoints = 48

// sizeCache keeps the tier sizes at each change sampled (a change never
// changes), filled in the background. It holds at most maxCachedSizes
// changes: past that, those the chart no longer samples are dropped, so a
// service that runs for months does not grow with its journal.
type sizeCache struct {
	mu      sync.Mutex
	byRev   map[string]map[string]int64
	filling bool
}

type tierSize struct {
	Tier  string
	Bytes int64
	Files int
}

type chartsData struct {
	Size       template.HTML
	SizeErr    string
	Pending    int
	Now        []tierSize
	NowSource  string
	Backlog    template.HTML
	BacklogErr string
}

// charts draws memory size per tier over the journal's history and the
// C4 backlog over the checkpoints.
func (s *site) charts(r *http.Request) (page, error) {
	var d chartsData
	d.Now, d.NowSource = s.currentSizes(r.Context())
	d.Size, d.Pending, d.SizeErr = s.sizeChart(r.Context())
	d.Backlog, d.BacklogErr = s.backlogChart()
	return page{Name: "charts", Title: "Charts", Data: d}, nil
}

func (s *site) sizeChart(ctx context.Context) (template.HTML, int, string) {
	changes, err := s.changes(ctx, journal.Query{Limit: 2000, Detail: journal.Bare})
	if err != nil {
		return "", 0, err.Error()
	}
	sample := sampleChanges(changes, chartPoints)
	s.sizes.mu.Lock()
	if s.sizes.byRev == nil {
		s.sizes.byRev = map[string]map[string]int64{}
	}
	s.sizes.prune(sample)
	var missing []string
	byTier := map[string][]point{}
	for i := len(sample) - 1; i >= 0; i-- {
		c := sample[i]
		sizes, ok := s.sizes.byRev[c.Rev]
		if !ok {
			missing = append(missing, c.Rev)
			continue
		}
		for tier, n := range sizes {
			byTier[tier] = append(byTier[tier], point{c.Time, float64(n)})
		}
	}
	if len(missing) > 0 && !s.sizes.filling {
		s.sizes.filling = true
		go niced(func() { s.fillSizes(missing) })
	}
	s.sizes.mu.Unlock()
	tiers := make([]string, 0, len(byTier))
	for t := range byTier {
		tiers = append(tiers, t)
	}
	sort.Strings(tiers)
	var ss []series
	for _, t := range tiers {
		ss = append(ss, series{Name: t, Points: byTier[t]})
	}
	return lineChart("memory size per tier", "bytes", ss), len(missing), ""
}

// maxCachedSizes bounds the changes whose sizes are kept.
const maxCachedSizes = 2 * chartPoints

// prune drops the sizes of changes not in sample once the cache is over
// its bound; the caller holds mu.
func (c *sizeCache) prune(sample []Change) {
	if len(c.byRev) <= maxCachedSizes {
		return
	}
	keep := make(map[string]bool, len(sample))
	for _, ch := range sample {
		keep[ch.Rev] = true
	}
	for rev := range c.byRev {
		if !keep[rev] {
			delete(c.byRev, rev)
		}
	}
}

// sampleChanges picks at most points of changes (newest first) for the
// chart: every k-th change counted from the oldest, k a power of two, and
// the newest. Counted from the oldest, the picks stay the same as changes
// are added (until their number doubles and k with it), so a new commit
// adds one point to read, not a new set of points.
func sampleChanges(changes []Change, points int) []Change {
	n := len(changes)
	if n <= points {
		return changes
	}
	k := 1
	for (n-1)/k+1 > points-1 {
		k *= 2
	}
	sample := []Change{changes[0]}
	for j := ((n - 2) / k) * k; j >= 0; j -= k { // j counts from the oldest
		sample = append(sample, changes[n-1-j])
	}
	return sample
}

// fillSizes reads the sizes at each of revs, one at a time and each in the
// dashboard's turn, so it takes no more CPU than a page does.
func (s *site) fillSizes(revs []string) {
	defer func() {
		s.sizes.mu.Lock()
		s.sizes.filling = false
		s.sizes.mu.Unlock()
	}()
	for _, rev := range revs {
		s.turn <- struct{}{}
		ctx, cancel := context.WithTimeout(context.Background(), pageTimeout)
		files, err := s.journal(ctx).Sizes(ctx, rev)
		cancel()
		<-s.turn
		if err != nil {
			s.o.Log.Warn("dashboard: journal sizes", "rev", rev, "err", err)
			return
		}
		byTier := map[string]int64{}
		for f, n := range files {
			byTier[tierOf(f)] += n
		}
		s.sizes.mu.Lock()
		// A copy of the revision: it is a slice of the whole log git
		// printed, which it would keep alive for as long as it is cached.
		s.sizes.byRev[strings.Clone(rev)] = byTier
		s.sizes.mu.Unlock()
	}
}

// currentSizes are the bytes and files of each tier: from the search
// index's record of the files it read (one query, where walking the tree
// of a large home stats fifteen thousand files), and the always-injected
// files from the disk. Without the index, the tree is walked.
func (s *site) currentSizes(ctx context.Context) ([]tierSize, string) {
	mem := s.o.Layout.MemoryDir()
	sizes := map[string]*tierSize{}
	add := func(rel string, n int64) {
		t := tierOf(rel)
		if sizes[t] == nil {
			sizes[t] = &tierSize{Tier: t}
		}
		sizes[t].Bytes += n
		sizes[t].Files++
	}
	source := "as the search index last read them"
	if files, err := s.indexedSizes(ctx); err == nil {
		for p, n := range files {
			if rel, ok := strings.CutPrefix(p, "memory/"); ok {
				add(rel, n)
			}
		}
		for _, name := range tiers.AllInjected() {
			if st, err := os.Stat(filepath.Join(mem, name)); err == nil && st.Mode().IsRegular() {
				add(name, st.Size())
			}
		}
	} else {
		source = "from the disk (" + err.Error() + ")"
		walkSizes(mem, add)
	}
	out := make([]tierSize, 0, len(sizes))
	for _, ts := range sizes {
		out = append(out, *ts)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tier < out[j].Tier })
	return out, source
}

func (s *site) indexedSizes(ctx context.Context) (map[string]int64, error) {
	ix, err := s.openIndex()
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	return ix.FileSizes(ctx)
}

// walkSizes calls add with every regular file below mem outside dot-dirs.
func walkSizes(mem string, add func(rel string, n int64)) {
	filepath.WalkDir(mem, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if strings.HasPrefix(de.Name(), ".") && p != mem {
			if de.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !de.Type().IsRegular() {
			return nil
		}
		if info, err := de.Info(); err == nil {
			rel, _ := filepath.Rel(mem, p)
			add(filepath.ToSlash(rel), info.Size())
		}
		return nil
	})
}

// backlogLimit is how many checkpoints the backlog chart covers.
const backlogLimit = 200

func (s *site) backlogChart() (template.HTML, string) {
	db, err := c4sync.Open(s.o.Layout.C4DB())
	if err != nil {
		return "", err.Error()
	}
	defer db.Close()
	points, err := db.Backlog(backlogLimit)
	if err != nil {
		return "", err.Error()
	}
	var before, after series
	before.Name, after.Name = "before checkpoint", "after checkpoint"
	for _, p := range points {
		t, err := time.ParseInLocation("2006-01-02 15:04:05", p.Timestamp, time.UTC)
		if err != nil {
			continue
		}
		before.Points = append(before.Points, point{t, float64(p.Before)})
		after.Points = append(after.Points, point{t, float64(p.After)})
	}
	if r, err := db.Unsummarized(); err == nil {
		now := s.o.Now()
		before.Points = append(before.Points, point{now, float64(r.Count)})
		after.Points = append(after.Points, point{now, float64(r.Count)})
	}
	return lineChart("C4 backlog", "conversations", []series{before, after}), ""
}
