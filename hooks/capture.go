package hooks

import (
	"context"

	c4sync "github.com/zylos/zylos-memory/sync"
)

// CaptureEnv switches on recording what is typed into Claude Code and its
// final replies in C4 (`init --capture-prompts` sets it in the settings'
// env). Off by default: a home whose comm-bridge logs every message would
// record them twice.
const CaptureEnv = "ZYLOS_MEMORY_CAPTURE_PROMPTS"

// CaptureChannel is the C4 channel of captured conversations.
const CaptureChannel = "claude-code"

func capturing(env Env) bool { return env.getenv(CaptureEnv) == "1" }

// capture records text in C4 (the session id as endpoint), creating the
// database on first use: a home without a comm-bridge is what capture is
// for.
func capture(ctx context.Context, env Env, direction, sessionID, text string) error {
	db, err := captureOpen(ctx, env, direction, sessionID, text)
	if db != nil {
		db.Close()
	}
	return err
}

// captureOpen is capture that answers the database it wrote to, still
// open (nil when nothing was captured), for the prompt's sync trigger to
// read the backlog on: the caller closes it.
func captureOpen(ctx context.Context, env Env, direction, sessionID, text string) (*c4sync.DB, error) {
	if text == "" || !capturing(env) {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path := env.Layout.C4DB()
	if _, err := c4sync.FirstUse(path); err != nil {
		return nil, err
	}
	db, err := c4sync.OpenWrite(path)
	if err != nil {
		return nil, err
	}
	if env.Now != nil {
		db.SetClock(env.Now)
	}
	if _, err := db.Record(direction, CaptureChannel, sessionID, text); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
