package records

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// WindowReason is the retirement reason of the session rolling window.
const WindowReason = "Session rolling window: exceeded max_retained limit"

// EnforceOptions are the flags of `records enforce`.
type EnforceOptions struct {
	Root        string
	Category    string
	MaxRetained int  // 0: categories.<c>.max_retained from the config
	MaxRetire   int  // at most this many retirements in one run; 0: max(10, 10*max_retained)
	DryRun      bool // report what would be retired, change nothing
	Now         time.Time
	Warn        func(string)
}

// Enforce applies the rolling window under the lock: the oldest active
// records beyond max_retained are retired (never deleted).
func Enforce(o EnforceOptions) (Answer, error) {
	if o.Category != "session_summary" {
		return nil, newError(ErrInput, "field", "--category", "got", quote(o.Category),
			"fix", "Only session_summary has a rolling window")
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	lock, err := AcquireWriteLock(o.Root, o.Warn)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	sweepFolders(o.Root, o.Category)
	res, err := enforceWindow(o.Root, window{max: o.MaxRetained, maxRetire: o.MaxRetire, dryRun: o.DryRun}, o.Now, o.Warn)
	if err != nil {
		return nil, err
	}
	ans := Answer{{"category", o.Category}, {"max_retained", res.max}, {"active_count", res.active},
		{"retired", res.retired}}
	if o.DryRun {
		ans = append(ans, Field{"dry_run", true})
	}
	return ans, nil
}

// defaultRetireLimit is the plugin's per-run cap on rolling-window
// retirements for a window of the given size.
func defaultRetireLimit(size int) int { return max(10, 10*size) }

// window is one run of the rolling window: its size (0: from the
// config), the cap on retirements (0: max(10, 10*size)) and whether it
// only reports.
type window struct {
	max, maxRetire int
	dryRun         bool
}

type windowResult struct {
	max, active int
	retired     []string
}

// enforceWindow retires the oldest active sessions beyond the window.
// The caller holds the lock.
func enforceWindow(root string, win window, now time.Time, warn func(string)) (windowResult, error) {
	max := win.max
	if max <= 0 {
		max = configOrDefault(root, warn).MaxRetained("session_summary")
	}
	res := windowResult{max: max, retired: []string{}}
	sessions, err := ScanCategory(root, "session_summary", true, warn)
	if err != nil {
		return res, err
	}
	sortOldestFirst(sessions)
	excess := len(sessions) - max
	// The plugin's safety valve: one run retires at most max(10,
	// 10*max_retained) unless --max-retire says otherwise.
	limit := win.maxRetire
	if limit <= 0 {
		limit = defaultRetireLimit(max)
	}
	retire := min(excess, limit)
	for i := 0; i < retire; i++ {
		shown := IndexPath(root, sessions[i].Abs)
		if note := uniqueContent(sessions[i], sessions[excess:]); note != "" {
			warn(fmt.Sprintf("[WARN] retiring %s: %s (kept for the grace period)", shown, note))
		}
		if win.dryRun {
			warn(fmt.Sprintf("[ROLLING_WINDOW] Would retire: %s (created: %s)", shown, sessions[i].Record.CreatedAt))
		} else if err := retireForWindow(root, sessions[i].Abs, now, warn); err != nil {
			return res, err
		}
		res.retired = append(res.retired, shown)
	}
	res.active = len(sessions) - len(res.retired)
	return res, nil
}

func sortOldestFirst(recs []Scanned) {
	key := func(s Scanned) string {
		if t, err := parseStamp(s.Record.CreatedAt); err == nil {
			return stamp(t)
		}
		return s.Record.CreatedAt
	}
	sort.SliceStable(recs, func(i, j int) bool {
		if a, b := key(recs[i]), key(recs[j]); a != b {
			return a < b
		}
		return recs[i].Abs < recs[j].Abs
	})
}

func retireForWindow(root, abs string, now time.Time, warn func(string)) error {
	w := &writer{
		WriteRequest: WriteRequest{Action: ActionRetire, Target: targetAt(root, abs, "session_summary"), Now: now,
			Reason: WindowReason, Warn: WarnLines(warn)},
	}
	_, err := w.lifecycle()
	return err
}

// uniqueContent names the open items of an outgoing session (in progress,
// blockers, next actions) that no kept session mentions: the deletion
// guard of the plugin's skill. It only warns; retirement proceeds.
func uniqueContent(old Scanned, kept []Scanned) string {
	var corpus strings.Builder
	for _, k := range kept {
		corpus.WriteString(strings.ToLower(fmt.Sprint(k.Record.Content)))
	}
	text := corpus.String()
	var missing []string
	for _, field := range []string{"in_progress", "blockers", "next_actions"} {
		items, _ := old.Record.Content[field].([]any)
		for _, it := range items {
			s, ok := it.(string)
			if ok && strings.TrimSpace(s) != "" && !strings.Contains(text, strings.ToLower(strings.TrimSpace(s))) {
				missing = append(missing, field+": "+Truncate(s, 60))
			}
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("%d open item(s) found in no kept session: %s", len(missing), strings.Join(missing, "; "))
}
