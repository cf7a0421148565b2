package hooks

import (
	"context"
	"errors"
	"path/filepath"

	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

// c4Start is the C4 part of the session-start context and, when it
// carries the sync trigger, the unsummarized range the trigger speaks of.
type c4Start struct {
	c4sync.SessionInit
	said *c4sync.Range
}

// c4SessionInit is the C4 part of the session-start context, read on one
// connection. A home without a C4 database simply has no C4 part.
func c4SessionInit(ctx context.Context, env Env) (c4Start, error) {
	l := env.Layout
	return withC4(ctx, l, func(db *c4sync.DB) (c4Start, error) {
		init, err := db.SessionInit(l.Kind(), syncThreshold(env), filepath.Join(l.ClaudeDir(), "skills"))
		if err != nil || !init.Trigger {
			return c4Start{SessionInit: init}, err
		}
		r, err := db.Unsummarized()
		if err != nil {
			// Not remembering the trigger only means it may be said once more.
			return c4Start{SessionInit: init}, nil
		}
		return c4Start{SessionInit: init, said: &r}, nil
	})
}

// c4Unsummarized is the range of conversations not yet summarized; a home
// without a C4 database has none.
func c4Unsummarized(ctx context.Context, l tiers.Layout) (c4sync.Range, error) {
	return withC4(ctx, l, func(db *c4sync.DB) (c4sync.Range, error) {
		return db.Unsummarized()
	})
}

// syncThreshold is the home's (tiers.SyncThresholdVar, else the
// layout's): a value that is not a count is ignored, as a hook must not
// fail on its configuration.
func syncThreshold(env Env) int { return env.home().Settings.SyncThreshold }

// thresholdEnv sets the sync threshold, as for `c4 session-init` and
// `c4 threshold-check`.
const thresholdEnv = tiers.SyncThresholdVar

func withC4[T any](ctx context.Context, l tiers.Layout, fn func(*c4sync.DB) (T, error)) (T, error) {
	var none T
	if err := ctx.Err(); err != nil {
		return none, err
	}
	db, err := c4sync.Open(l.C4DB())
	if errors.Is(err, c4sync.ErrNoDB) {
		return none, nil
	}
	if err != nil {
		return none, err
	}
	defer db.Close()
	return fn(db)
}
