package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/zylos/zylos-memory/internal/flock"
)

// SessionVar is the variable Claude Code sets for the commands it runs:
// the session a change made by the agent belongs to.
const SessionVar = "CLAUDE_CODE_SESSION_ID"

// CommandChange is the change of a command run as command, in session
// ("" when no session ran it; its process's SessionVar names it).
func CommandChange(command, session string) Change {
	return Change{Source: FromCommand, Command: command, Session: session}
}

// changeLock serialises the writers that go through Around, so that each
// commit holds exactly its own write.
const changeLock = "journal-change.lock"

// Around runs write between two commits: first the external edits found
// before it, so that its commit never claims them, then what write
// changed, as c, and nothing else (an agent's tool call or another
// writer at work meanwhile keeps its own). Writers through Around take
// turns. A journal failure goes to warn, once for each new problem and
// never for a busy repository, and is never write's failure.
func (j *Journal) Around(ctx context.Context, c Change, warn func(error), write func() error) error {
	report := func(err error) {
		if err != nil && !errors.Is(err, ErrBusy) && j.NewProblem(err) {
			warn(err)
		}
	}
	var mark Mark
	if info, err := os.Stat(j.dir); err == nil && info.IsDir() && !j.Off() {
		if release, err := j.turn(); err == nil {
			defer release()
		} else {
			report(err) // the write goes on: the journal never stands in its way
		}
		_, err := j.CommitOutside(ctx)
		report(err)
		mark = j.Mark()
	}
	writeErr := write()
	var err error
	if mark.st == nil {
		// No memory before the write, or a journal just turned on: what
		// is there now is the write's.
		_, err = j.Commit(ctx, c)
	} else if paths := j.ChangedSince(mark); len(paths) > 0 {
		_, err = j.commitSelected(ctx, c, selection{only: paths})
	}
	report(err)
	return writeErr
}

// turn waits, within the journal's lock wait, for the other writers that
// go through Around.
func (j *Journal) turn() (release func(), err error) {
	if err := os.MkdirAll(j.state, 0o755); err != nil {
		return nil, err
	}
	return flock.AcquireWithin(filepath.Join(j.state, changeLock), "another memory write", j.LockWait)
}
