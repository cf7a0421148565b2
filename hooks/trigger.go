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
// is kept in the session's state directory.
const (
	triggerBeginFile = "sync-trigger-begin" // first unsummarized id when last said
	triggerCountFile = "sync-trigger-count" // unsummarized count when last said
)

// promptTrigger is the `[Action Required]` line for a prompt of the
// session, or "" when it is not over the threshold or was already said.
func promptTrigger(ctx context.Context, env Env, sessionID string) (string, error) {
	threshold := syncThreshold(env)
	r, err := c4Unsummarized(ctx, env.Layout)
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
	begin, okBegin := hookstate.ReadInt(dir, triggerBeginFile)
	count, okCount := hookstate.ReadInt(dir, triggerCountFile)
	if !okBegin || !okCount || r.Begin == nil || *r.Begin != begin {
		return true
	}
	return r.Count >= count+int64(max(threshold, 1))
}

// rememberTrigger records that r was said; a failure only means it may be
// said once more.
func rememberTrigger(dir string, r c4sync.Range) {
	if r.Begin == nil {
		return
	}
	_ = hookstate.WriteInt(dir, triggerBeginFile, *r.Begin)
	_ = hookstate.WriteInt(dir, triggerCountFile, r.Count)
}

// startSessionState prunes the state of sessions long gone and, when the
// session-start context carries the sync trigger, records it as said.
func startSessionState(ctx context.Context, env Env, sessionID string, triggered bool) {
	//processglobal: the wall clock, which file modification times are compared with
	hookstate.Prune(env.Layout.StateDir(), time.Now()) // file times are wall-clock times
	if !triggered {
		return
	}
	if r, err := c4Unsummarized(ctx, env.Layout); err == nil && r.Count > 0 {
		rememberTrigger(hookstate.Dir(env.Layout.StateDir(), sessionID), r)
	}
}
