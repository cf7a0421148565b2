package journal

import (
	"context"
	"os"
)

// afterKilledGit removes the lock files a git of ours left when it was
// killed because ctx ended (a hook's deadline). Under the journal lock no
// other committer of ours runs git, so they are ours, and the next
// committer would take them as a dead committer's by the owner file's
// pid. But the process may live on, as the memory service answering a
// hook does, and its live pid would make them look like another
// program's, left in place for minutes; so they go at once, as they
// would have after the hook's own process died.
func (j *Journal) afterKilledGit(ctx context.Context) {
	if ctx.Err() == nil || !j.holding {
		return
	}
	for _, l := range j.gitLocks() {
		os.Remove(l)
	}
}
