package journal

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// WatchOptions tune the service's watch of a journal.
type WatchOptions struct {
	Poll       time.Duration // how often the tree is stamped; default 2s
	PushBatch  time.Duration // least time between pushes; default 30s
	MaxBackoff time.Duration // longest wait after failed pushes; default 10m
	Log        *slog.Logger
}

// Watch commits, until ctx ends, the changes made to the memory outside
// the journal's committers (an editor, zylos's scripts) within a poll of
// their making, as external edits, and pushes the journal to its remote
// when one is set. A stamp of the tree decides whether git runs at all.
// It returns once no git it started is left running.
func (j *Journal) Watch(ctx context.Context, o WatchOptions) {
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.PushBatch <= 0 {
		o.PushBatch = 30 * time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Minute
	}
	p := &Pusher{J: j, Batch: o.PushBatch, MaxBackoff: o.MaxBackoff}
	t := time.NewTicker(o.Poll)
	defer t.Stop()
	var lastErr string
	graphed, graphAt := "", time.Time{}
	var graphing sync.WaitGroup
	defer graphing.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if j.Off() {
				continue
			}
			res, err := j.CommitOutside(ctx)
			switch {
			case err != nil && !errors.Is(err, ErrBusy) && err.Error() != lastErr && o.Log != nil:
				o.Log.Warn("journal: external edits not committed", "err", err)
			case res != nil && o.Log != nil:
				o.Log.Info("journal: external edit", "rev", short(res.Rev), "summary", Describe(res.Files))
			}
			if err != nil {
				lastErr = err.Error()
			} else {
				lastErr = ""
			}
			if head := j.head(); head != graphed && now.Sub(graphAt) >= graphEvery {
				graphed, graphAt = head, now
				graphing.Add(1)
				go func() {
					defer graphing.Done()
					j.writeGraph(ctx, o.Log)
				}()
			}
			prev := p.LastErr
			if p.Tick(ctx, now) && o.Log != nil {
				o.Log.Info("journal: pushed", "remote", j.Remote(ctx))
			} else if p.LastErr != nil && prev == nil && o.Log != nil {
				o.Log.Warn("journal: push failed; retrying with backoff", "err", p.LastErr)
			}
		}
	}
}

// graphEvery is how often the service refreshes the commit-graph.
const graphEvery = time.Hour

// writeGraph runs git gc --auto (hook commits leave it out to stay
// quick) and writes the commit-graph with changed-path filters, which
// `git log -- PATH` (history of one file) reads instead of walking every
// commit's tree.
func (j *Journal) writeGraph(ctx context.Context, log *slog.Logger) {
	if exists, err := j.checkRepo(); err != nil || !exists || j.head() == "" {
		return
	}
	// A detached gc would outlive the service that started it.
	if _, err := j.git(ctx, nil, "-c", "gc.autoDetach=false", "gc", "--auto", "--quiet"); err != nil && log != nil {
		log.Warn("journal: git gc --auto failed", "err", err)
	}
	if _, err := j.git(ctx, nil, "commit-graph", "write", "--reachable", "--changed-paths"); err != nil && log != nil {
		log.Warn("journal: commit-graph not written", "err", err)
	}
	release, err := j.lock(j.LockWait)
	if err != nil {
		return
	}
	defer release()
	if err := j.catchUp(ctx, true); err != nil && log != nil {
		log.Warn("journal: path index not brought up to date", "err", err)
	}
}
