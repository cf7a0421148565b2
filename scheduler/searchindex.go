package scheduler

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/fulltext"
)

// IndexPoll is how often the service brings the search index up to date.
const IndexPoll = 3 * time.Second

// KeepSearchIndex keeps the recall index of l built and current until ctx
// ends: built at once when it is missing or damaged (a fresh home), then
// brought up to date every poll by the quick update the hooks use, which
// writes nothing when nothing changed. So every reader that never builds
// it (the dashboard) finds it ready, and a change the service committed
// is searchable within a poll. A failure is logged once until it clears,
// and tried again at the next poll.
func KeepSearchIndex(ctx context.Context, l tiers.Layout, log *slog.Logger, poll time.Duration) {
	if poll <= 0 {
		poll = IndexPoll
	}
	h := fulltext.HomeOf(l, "")
	lastErr := ""
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		err := refreshIndex(ctx, h)
		switch {
		case err == nil || errors.Is(err, fulltext.ErrLocked) || ctx.Err() != nil:
			if lastErr != "" && err == nil {
				log.Info("search index up to date again")
				lastErr = ""
			}
		case err.Error() != lastErr:
			lastErr = err.Error()
			log.Warn("search index", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// refreshIndex opens the index (building it when it must) and runs the
// quick update; it is opened anew each time, as `reindex` may replace it.
func refreshIndex(ctx context.Context, h fulltext.Home) error {
	ix, err := fulltext.Open(ctx, h, fulltext.Options{NoWaitUpdate: true})
	if err != nil {
		return err
	}
	defer ix.Close()
	_, err = ix.Update(ctx, false)
	return err
}
