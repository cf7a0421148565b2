package hooks

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"

	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

// c4SessionInit is the C4 part of the session-start context. A home without
// a C4 database simply has no C4 part.
func c4SessionInit(ctx context.Context, env Env) (c4sync.SessionInit, error) {
	l := env.Layout
	return withC4(ctx, l, func(db *c4sync.DB) (c4sync.SessionInit, error) {
		return db.SessionInit(l.Kind(), syncThreshold(env), filepath.Join(l.ClaudeDir(), "skills"))
	})
}

// c4Unsummarized is the range of conversations not yet summarized; a home
// without a C4 database has none.
func c4Unsummarized(ctx context.Context, l tiers.Layout) (c4sync.Range, error) {
	return withC4(ctx, l, func(db *c4sync.DB) (c4sync.Range, error) {
		return db.Unsummarized()
	})
}

// thresholdEnv sets the sync threshold, as for `c4 session-init` and
// `c4 threshold-check`. A value that is not a count is ignored: a hook
// must not fail on its configuration.
const thresholdEnv = "C4_SYNC_THRESHOLD"

func syncThreshold(env Env) int {
	if n, err := strconv.Atoi(env.getenv(thresholdEnv)); err == nil && n >= 0 {
		return n
	}
	return env.Layout.Kind().SyncThreshold
}

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
