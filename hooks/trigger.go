package hooks

import (
	"context"
	"time"

	"github.com/zylos/zylos-memory/internal/hookstate"
	c4sync "github.com/zylos/zylos-memory/sync"
)

// The sync trigger is said once per session: at session start, or at the
// first prompt over the threshold, and again only when the count has grown
// by a further threshold or a sync moved the checkpoint. What was last said
// is kept in the session's state directory: the first unsummarized id and
// the unsummarized count, in one file, so that saying it costs one write.
const triggerFile = "sync-trigger"

// promptTrigger is the `[Action Required]` line for a prompt of the
// session, or "" when it is not over the threshold or was already said.
// db, when not nil, is the C4 database the prompt was just captured in,
// read instead of opening it again.
func promptTrigger(ctx context.Context, env Env, sessionID string, db *c4sync.DB) (string, error) {
	threshold := syncThreshold(env)
	var r c4sync.Range
	var err error
	if db != nil {
		r, err = db.Unsummarized()
	} else {
		r, err = c4Unsummarized(ctx, env.Layout)
	}
	if err != nil || r.Count <= int64(threshold) {
		return "", err
	}
	dir := hookstate.Dir(env.Layout.StateDir(), sessionID)
	if !triggerDue(dir, r, threshold) {
		return "", nil
	}
	rememberTrigger(dir, r)
	return c4sync.TriggerLine(env.Layout.Kind(), r) + "\n", nil
}

// triggerDue tells whether r is worth saying again in the session.
func triggerDue(dir string, r c4sync.Range, threshold int) bool {
	said, ok := hookstate.ReadInts(dir, triggerFile, 2)
	if !ok || r.Begin == nil || *r.Begin != said[0] {
		return true
	}
	return r.Count >= said[1]+int64(max(threshold, 1))
}

// rememberTrigger records that r was said; a failure only means it may be
// said once more.
func rememberTrigger(dir string, r c4sync.Range) {
	if r.Begin == nil {
		return
	}
	_ = hookstate.WriteInts(dir, triggerFile, *r.Begin, r.Count)
}

// startSessionState prunes the state of sessions long gone and, when the
// session-start context carries the sync trigger (said names its range),
// records it as said.
func startSessionState(env Env, sessionID string, said *c4sync.Range) {
	//processglobal: the wall clock, which file modification times are compared with
	hookstate.Prune(env.Layout.StateDir(), time.Now()) // file times are wall-clock times
	if said != nil && said.Count > 0 {
		rememberTrigger(hookstate.Dir(env.Layout.StateDir(), sessionID), *said)
	}
}
