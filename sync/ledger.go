package c4sync

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/flock"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// Ledger records which conversation ranges a sync has fetched, per C4
// database, so that a checkpoint never advances over conversations nobody
// read. It is a small JSON file replaced atomically under a file lock.
type Ledger struct {
	Path string // e.g. memory/.state/c4-fetched.json
}

// span is an inclusive id range.
type span struct {
	Begin int64 `json:"begin"`
	End   int64 `json:"end"`
}

type ledgerFile struct {
	Fetched map[string][]span `json:"fetched"` // by absolute C4 db path
}

// Record adds [begin, end] to what was fetched from db.
func (l Ledger) Record(db string, begin, end int64) error {
	return l.update(func(f *ledgerFile) {
		f.Fetched[db] = merge(append(f.Fetched[db], span{begin, end}))
	})
}

// Forget drops what lies at or below upTo (it is checkpointed now).
func (l Ledger) Forget(db string, upTo int64) error {
	return l.update(func(f *ledgerFile) {
		var kept []span
		for _, s := range f.Fetched[db] {
			if s.End > upTo {
				s.Begin = max(s.Begin, upTo+1)
				kept = append(kept, s)
			}
		}
		if kept == nil {
			delete(f.Fetched, db)
		} else {
			f.Fetched[db] = kept
		}
	})
}

// Unfetched returns the first id in [begin, end] that was never fetched
// from db, and false when the whole range was.
func (l Ledger) Unfetched(db string, begin, end int64) (int64, bool, error) {
	f, err := l.read()
	if err != nil {
		return 0, false, err
	}
	next := begin
	for _, s := range f.Fetched[db] {
		if s.Begin <= next && s.End >= next {
			if s.End >= end {
				return 0, false, nil
			}
			next = s.End + 1
		}
	}
	if next > end {
		return 0, false, nil
	}
	return next, true, nil
}

// merge sorts spans and joins the ones that overlap or touch.
func merge(spans []span) []span {
	sort.Slice(spans, func(i, j int) bool { return spans[i].Begin < spans[j].Begin })
	var out []span
	for _, s := range spans {
		if n := len(out); n > 0 && s.Begin <= out[n-1].End+1 {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (l Ledger) read() (*ledgerFile, error) {
	f := &ledgerFile{Fetched: map[string][]span{}}
	data, err := regfile.ReadFile(l.Path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read sync ledger: %w", err)
	}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("read sync ledger %s: %w", l.Path, err)
	}
	if f.Fetched == nil {
		f.Fetched = map[string][]span{}
	}
	return f, nil
}

// update applies change under an exclusive lock so that concurrent
// fetches never lose each other's ranges.
func (l Ledger) update(change func(*ledgerFile)) error {
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o755); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}
	unlock, err := flock.Acquire(l.Path+".lock", "another sync fetch or run")
	if err != nil {
		return fmt.Errorf("lock sync ledger: %w", err)
	}
	defer unlock()
	atomicfile.Sweep(filepath.Dir(l.Path))
	f, err := l.read()
	if err != nil {
		return err
	}
	change(f)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("write sync ledger: %w", err)
	}
	return atomicfile.WriteFile(l.Path, append(data, '\n'), 0o644)
}
