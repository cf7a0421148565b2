package scheduler

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	c4sync "github.com/zylos/zylos-memory/sync"
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
// is searchable within a poll. The index stays open between polls (a
// close would checkpoint the log each time, and a reader would wait on a
// service stopped in it); it is opened again when `reindex` replaced its
// file, or after an error. A failure is logged once until it clears.
func KeepSearchIndex(ctx context.Context, l tiers.Layout, log *slog.Logger, poll time.Duration) {
	if poll <= 0 {
		poll = IndexPoll
	}
	k := indexKeeper{scope: fulltext.ScopeOf(l, "", c4sync.OpenConversations)}
	defer k.close()
	lastErr := ""
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		err := k.refresh(ctx)
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

// indexKeeper holds the open index and the identity of its file.
type indexKeeper struct {
	scope fulltext.Scope
	ix    *fulltext.Index
	file  os.FileInfo
}

// refresh opens the index when it is not open or its file was replaced
// (building it when it must), and runs the quick update.
func (k *indexKeeper) refresh(ctx context.Context) error {
	st, err := os.Stat(k.scope.DBPath())
	if k.ix != nil && (err != nil || !os.SameFile(st, k.file)) {
		k.close()
	}
	if k.ix == nil {
		ix, err := fulltext.Open(ctx, k.scope, fulltext.Options{NoWaitUpdate: true})
		if err != nil {
			return err
		}
		if k.file, err = os.Stat(k.scope.DBPath()); err != nil {
			ix.Close()
			return err
		}
		k.ix = ix
	}
	if _, err := k.ix.Update(ctx, false); err != nil && !errors.Is(err, fulltext.ErrLocked) {
		k.close()
		return err
	}
	return nil
}

func (k *indexKeeper) close() {
	if k.ix != nil {
		k.ix.Close()
		k.ix = nil
	}
}
