package tiers

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/lazy"
)

// budgetCheck is one always-injected file against its budget.
type budgetCheck struct {
	file         string
	budget, warn int64
	info         os.FileInfo // nil: missing
}

func (c budgetCheck) over() bool { return c.info != nil && c.info.Size() > c.budget }
func (c budgetCheck) near() bool {
	return c.info != nil && c.warn > 0 && c.info.Size() > c.warn && c.info.Size() <= c.budget
}

// pct is Math.round(size / budget * 100).
func (c budgetCheck) pct() int64 { return (c.info.Size()*200 + c.budget) / (2 * c.budget) }

// statusV07 writes v0.7.1's memory-status.js report of a v0.7 home: each
// of k's always-injected files against its budget ([OK], [WARN] over its warning
// size, [OVER] its budget, or MISSING), the totals of every file under
// memory/ and a health line.
func statusV07(k *Kind, l Layout, w io.Writer) error {
	checks, err := k.checks(l)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("Memory Status\n============\n")
	var over, near, missing int
	for _, c := range checks {
		if c.info == nil {
			fmt.Fprintf(&b, "%s: MISSING\n", c.file)
			missing++
			continue
		}
		status := "OK"
		switch {
		case c.over():
			status = "OVER"
			over++
		case c.near():
			status = "WARN"
			near++
		}
		fmt.Fprintf(&b, "%s: %s / %s (%d%%) [%s] updated %s\n", c.file, formatSize(c.info.Size()), formatSize(c.budget),
			c.pct(), status, nodeStatTime(c.info.ModTime()).UTC().Format("2006-01-02 15:04"))
	}
	files, err := scanMemory(l.MemoryDir(), "", nil)
	if err != nil {
		return err
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	fmt.Fprintf(&b, "\nTotal files: %d\nTotal size: %s\n", len(files), formatSize(total))
	var issues []string
	if over > 0 {
		issues = append(issues, fmt.Sprintf("%d over budget", over))
	}
	if near > 0 {
		issues = append(issues, fmt.Sprintf("%d near budget (audit on next sync)", near))
	}
	if missing > 0 {
		issues = append(issues, fmt.Sprintf("%d missing", missing))
	}
	if len(issues) == 0 {
		b.WriteString("Health: good\n")
	} else {
		fmt.Fprintf(&b, "Health: attention needed (%s)\n", strings.Join(issues, ", "))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write status: %w", err)
	}
	return nil
}

// v07SessionName is v0.7.1's parseSessionDate: a dated log, rotation
// copies (-N) included.
var v07SessionName = lazy.Regexp(`^(\d{4}-\d{2}-\d{2})(?:-\d+)?\.md$`)

// consolidationV07 is v0.7.1's consolidate.js report of a v0.7 home:
// totals, each of k's always-injected files against its budget, the freshness of
// k's reference files, the session logs older than 30 days, the ten oldest
// and ten largest files. now must be in the home's timezone.
func consolidationV07(k *Kind, l Layout, now time.Time) (JSObject, error) {
	now = nodeNow(now)
	files, err := scanMemory(l.MemoryDir(), "", nil)
	if err != nil {
		return nil, err
	}
	checks, err := k.checks(l)
	if err != nil {
		return nil, err
	}
	ageDays := func(t time.Time) int64 { return int64((now.UnixMilli() - t.UnixMilli()) / 86400000) }
	fileJSON := func(f statusFile) JSObject {
		return JSObject{{"path", f.path}, {"sizeBytes", f.size}, {"modifiedAt", isoMillis(f.modified)}, {"ageDays", floorDays(now, f.modified)}}
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	rules := JSObject{}
	checksJSON, overList, nearList := JSArray{}, JSArray{}, JSArray{}
	for _, f := range k.Injected {
		rules = append(rules, JSField{f.Name, f.Budget})
	}
	// v0.7.1's WARN_THRESHOLDS lists the early warnings last injected first.
	warns := JSObject{}
	for _, f := range slices.Backward(k.Injected) {
		if f.WarnAt > 0 {
			warns = append(warns, JSField{f.Name, f.WarnAt})
		}
	}
	for _, c := range checks {
		if c.info == nil {
			checksJSON = append(checksJSON, JSObject{{"file", c.file}, {"exists", false}, {"budgetBytes", c.budget}, {"overBudget", false}})
			continue
		}
		var warn any
		if c.warn > 0 {
			warn = c.warn
		}
		checksJSON = append(checksJSON, JSObject{{"file", c.file}, {"exists", true}, {"sizeBytes", c.info.Size()},
			{"budgetBytes", c.budget}, {"warnBytes", warn}, {"overBudget", c.over()}, {"nearBudget", c.near()},
			{"budgetUsagePct", c.pct()}, {"modifiedAt", isoMillis(nodeStatTime(c.info.ModTime()))}})
		if c.over() {
			overList = append(overList, c.file)
		}
		if c.near() {
			nearList = append(nearList, c.file)
		}
	}
	refs := JSArray{}
	// The reference files it follows are those a memory sync updates.
	for _, name := range k.syncRefs {
		rel := "reference/" + name
		info, err := os.Stat(filepath.Join(l.MemoryDir(), filepath.FromSlash(rel)))
		if isMissing(err) {
			refs = append(refs, JSObject{{"file", rel}, {"exists", false}})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("stat %s: %w", rel, err)
		}
		mod := nodeStatTime(info.ModTime())
		age := ageDays(mod)
		refs = append(refs, JSObject{{"file", rel}, {"exists", true}, {"sizeBytes", info.Size()},
			{"modifiedAt", isoMillis(mod)}, {"ageDays", age}, {"freshness", freshness(age)}})
	}
	candidates, err := v07ArchiveCandidates(l, now)
	if err != nil {
		return nil, err
	}
	oldest := slices.Clone(files)
	slices.SortStableFunc(oldest, func(a, b statusFile) int { return int(floorDays(now, b.modified) - floorDays(now, a.modified)) })
	largest := slices.Clone(files)
	slices.SortStableFunc(largest, func(a, b statusFile) int { return cmpInt64(b.size, a.size) })
	top := func(fs []statusFile) JSArray {
		out := JSArray{}
		for _, f := range fs[:min(10, len(fs))] {
			out = append(out, fileJSON(f))
		}
		return out
	}
	return JSObject{
		{"timestamp", isoMillis(now)},
		{"memoryDir", l.MemoryDir()},
		{"totals", JSObject{{"files", int64(len(files))}, {"sizeBytes", total}}},
		{"budgets", JSObject{{"rules", rules}, {"warnThresholds", warns}, {"checks", checksJSON},
			{"overBudget", overList}, {"nearBudget", nearList}}},
		{"referenceFiles", refs},
		{"sessions", JSObject{{"archiveCandidatesOlderThan30Days", candidates}}},
		{"oldestFiles", top(oldest)},
		{"largestFiles", top(largest)},
	}, nil
}

// floorDays is Math.floor((Date.now() - mtimeMs) / day) in whole days.
func floorDays(now, t time.Time) int64 {
	ms := now.UnixMilli() - t.UnixMilli()
	d := ms / 86400000
	if ms%86400000 != 0 && ms < 0 {
		d--
	}
	return d
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// freshness is v0.7.1's freshnessState of a file's age in days.
func freshness(ageDays int64) string {
	switch {
	case ageDays < 7:
		return "active"
	case ageDays < 30:
		return "aging"
	case ageDays <= 90:
		return "fading"
	}
	return "stale"
}

// v07ArchiveCandidates are the dated session logs (rotation copies
// included) whose date is before today minus 30 calendar days, sorted.
func v07ArchiveCandidates(l Layout, now time.Time) (JSArray, error) {
	names, err := readDirNames(l.SessionsDir())
	if isMissing(err) {
		return JSArray{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	cutoff := time.Date(now.Year(), now.Month(), now.Day()-sessionArchiveAgeDays, now.Hour(), now.Minute(), now.Second(),
		now.Nanosecond(), now.Location()).Format("2006-01-02")
	var out []string
	for _, name := range names {
		if name == "current.md" || strings.HasPrefix(name, ".") {
			continue
		}
		if m := v07SessionName().FindStringSubmatch(name); m != nil && m[1] < cutoff {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	arr := JSArray{}
	for _, n := range out {
		arr = append(arr, n)
	}
	return arr, nil
}

// Budget is one always-injected file of a v0.7 home against its budget.
type Budget struct {
	File           string // relative to memory/
	Size           int64  // -1: missing
	Budget, WarnAt int64  // WarnAt 0: no early warning
}

// v07Consolidation is consolidationV07 and what it asks to act on.
func v07Consolidation(k *Kind, l Layout, now time.Time) (JSObject, int, error) {
	report, err := consolidationV07(k, l, now)
	if err != nil {
		return nil, 0, err
	}
	n, err := attentionV07(k, l, now)
	return report, n, err
}

// attentionV07 counts what v0.7.1's report asks to act on in a v0.7 home:
// files over their budget or warning size, and session logs to archive.
func attentionV07(k *Kind, l Layout, now time.Time) (int, error) {
	budgets, err := k.Budgets(l)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range budgets {
		if b.Size > b.Budget || (b.WarnAt > 0 && b.Size > b.WarnAt) {
			n++
		}
	}
	candidates, err := v07ArchiveCandidates(l, nodeNow(now))
	return n + len(candidates), err
}
