package recall

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/zylos/zylos-memory/tiers/records"
)

// Hit is one memory that matched: a record from index.md or an entry of a
// markdown tier.
type Hit struct {
	Category string   `json:"category"`
	Title    string   `json:"title"`
	Path     string   `json:"path"` // as cited: relative record path, or file.md#Lline
	Tags     []string `json:"tags,omitempty"`
	Status   string   `json:"status,omitempty"` // set when known without a deep check
	Score    int      `json:"score"`

	root string    // records root of a record hit; "" for markdown entries
	date time.Time // markdown entry date; zero when it has none
}

// scoreHits sets the score of each hit and keeps those that match.
func (q query) scoreHits(hits []Hit) []Hit {
	kept := hits[:0]
	for _, h := range hits {
		if h.Score = q.score(h.Title, h.Tags); h.Score > 0 {
			kept = append(kept, h)
		}
	}
	return kept
}

// rank orders scored hits best first. Only the best deepCheckTop are
// opened: a retired record among them is dropped and a recent one earns
// the recency point, so a prompt costs twenty file reads, never ten
// thousand. At most limit hits are returned (all when limit is 0).
func rank(hits []Hit, now time.Time, limit int) []Hit {
	scored := make([]ranked, len(hits))
	for i := range hits {
		scored[i] = ranked{i: int32(i), score: int32(hits[i].Score), prio: int32(priority(hits[i].Category))}
	}
	sortRanked(scored)
	kept := scored[:0]
	locators := map[string]*records.Locator{}
	for n, r := range scored {
		if n < deepCheckTop {
			drop, recent := deepCheck(hits[r.i], now, locators)
			if drop {
				continue
			}
			if recent {
				r.score += recencyPoints
			}
		}
		kept = append(kept, r)
	}
	sortRanked(kept)
	if limit > 0 && len(kept) > limit {
		kept = kept[:limit]
	}
	out := make([]Hit, len(kept))
	for n, r := range kept {
		out[n] = hits[r.i]
		out[n].Score = int(r.score)
	}
	return out
}

// ranked is a scored hit by index: sorting ten thousand of these is much
// cheaper than sorting the hits themselves.
type ranked struct{ i, score, prio int32 }

// before reports whether a ranks ahead of b: the order sortRanked gives
// hits that come in index order.
func (a ranked) before(b ranked) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.prio != b.prio {
		return a.prio < b.prio
	}
	return a.i < b.i
}

// keepBest adds r to kept, the best n so far in rank order; with n <= 0
// every hit is kept, in the order added. A prompt matching half of a
// ten-thousand-line index so holds 25 hits, not 5,000: in a fresh hook
// process every kilobyte allocated is a page to fault in.
func keepBest(kept []ranked, n int, r ranked) []ranked {
	if n <= 0 {
		return append(kept, r)
	}
	if len(kept) == n && !r.before(kept[n-1]) {
		return kept
	}
	at := slices.IndexFunc(kept, func(k ranked) bool { return r.before(k) })
	if at < 0 {
		at = len(kept)
	}
	if len(kept) == n {
		kept = kept[:n-1]
	}
	return slices.Insert(kept, at, r)
}

// bestLines scores the candidate lines of text (see eachCandidateLine)
// with score and returns the best n of those that score (all when n <= 0)
// as offsets in text, in text order.
func (q query) bestLines(text string, n int, score func(line string) (points, prio int)) []ranked {
	if len(text) > math.MaxInt32 {
		return nil
	}
	var kept []ranked
	q.eachCandidateLine(text, func(at int, line string, tokens int) {
		// A line scores at most maxTokenPoints per token it holds: once n
		// hits are kept, a line that cannot reach the last of them is not
		// even split.
		if n > 0 && len(kept) == n && tokens*maxTokenPoints < int(kept[n-1].score) {
			return
		}
		if points, prio := score(line); points > 0 {
			kept = keepBest(kept, n, ranked{i: int32(at), score: int32(points), prio: int32(prio)})
		}
	})
	if n > 0 {
		slices.SortFunc(kept, func(a, b ranked) int { return cmp.Compare(a.i, b.i) })
	}
	return kept
}

// sortRanked orders by score, then category priority; equal hits keep their
// order in the index, so the answer is deterministic.
func sortRanked(rs []ranked) {
	slices.SortStableFunc(rs, func(a, b ranked) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return cmp.Compare(a.prio, b.prio)
	})
}

// deepCheck opens a record to see whether it is retired (drop it) and
// whether it changed within the recency window. An index line whose path
// leaves the root is dropped too: it can only be forged. A file that cannot
// be read is neither retired nor recent, as in the plugin. locators holds
// one Locator per records root across the checks of a prompt.
func deepCheck(h Hit, now time.Time, locators map[string]*records.Locator) (drop, recent bool) {
	if h.root == "" {
		return false, isRecent(h.date, now)
	}
	loc := locators[h.root]
	if loc == nil {
		loc = records.NewLocator(h.root)
		locators[h.root] = loc
	}
	file, err := loc.Locate(h.Path)
	if err != nil {
		return true, false
	}
	r, err := records.ReadRecord(file)
	if err != nil {
		return false, false
	}
	updated, _ := parseTime(r.UpdatedAt)
	return r.Status() == records.StatusRetired, isRecent(updated, now)
}

func isRecent(t, now time.Time) bool {
	return !t.IsZero() && now.Sub(t) <= recencyDays*24*time.Hour
}

func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Parse(time.DateOnly, s)
}
