package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	tierhome "github.com/zylos/zylos-memory/tiers/home"
	"github.com/zylos/zylos-memory/tiers/team"
)

// teamMaxBackoff bounds the wait after failed team syncs.
const teamMaxBackoff = 30 * time.Minute

// KeepTeam syncs the home's team every period until ctx ends: it fetches
// what the other homes published, applies it and publishes this home's
// shared records. A home in no team is looked at again each period (a
// `team join` needs no restart). A failing remote is logged once until it
// clears, and tried again after a wait that doubles up to half an hour;
// no memory waits for it, as a sync only reads and adds. open opens the
// home for each sync.
func KeepTeam(ctx context.Context, open func() *tierhome.Home, scan team.Scanner, log *slog.Logger, period time.Duration) {
	backoff, lastErr := period, ""
	for {
		wait := period
		h := open()
		if _, err := team.ReadConfig(h.Layout); err == nil {
			rep, err := syncOnce(ctx, h, scan)
			problem := err
			if err == nil {
				problem = rep.Problem
				if n := rep.Arrived(); n > 0 || len(rep.Conflicts) > 0 || len(rep.Refused) > 0 {
					log.Info("team sync", "arrived", n, "conflicts", len(rep.Conflicts), "kept local", len(rep.Refused))
				}
			}
			switch {
			case problem == nil:
				if lastErr != "" {
					log.Info("team sync works again")
				}
				backoff, lastErr = period, ""
			case ctx.Err() != nil:
				return
			default:
				if problem.Error() != lastErr {
					lastErr = problem.Error()
					log.Warn("team sync", "err", problem)
				}
				wait = backoff
				backoff = min(2*backoff, teamMaxBackoff)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// syncOnce is one sync, a panic in it an error: the service that runs it
// answers the hooks too, and must outlive it.
func syncOnce(ctx context.Context, h *tierhome.Home, scan team.Scanner) (rep *team.Report, err error) {
	defer func() {
		if r := recover(); r != nil {
			rep, err = nil, fmt.Errorf("team sync failed: %v", r)
		}
	}()
	return team.Sync(ctx, h, scan)
}
