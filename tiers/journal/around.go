package journal

import (
	"context"
	"errors"
)

// SessionVar is the variable Claude Code sets for the commands it runs:
// the session a change made by the agent belongs to.
const SessionVar = "CLAUDE_CODE_SESSION_ID"

// CommandChange is the change of a command run as command, in session
// ("" when no session ran it; its process's SessionVar names it).
func CommandChange(command, session string) Change {
	return Change{Source: FromCommand, Command: command, Session: session}
}

// Around runs write between two commits: first the external edits found
// before it, so that its commit never claims them, then what it changed,
// as c. A journal failure goes to warn, once for each new problem and
// never for a busy repository, and is never write's failure: the memory
// is written and the journal catches up later.
func (j *Journal) Around(ctx context.Context, c Change, warn func(error), write func() error) error {
	report := func(err error) {
		if err != nil && !errors.Is(err, ErrBusy) && j.NewProblem(err) {
			warn(err)
		}
	}
	_, err := j.Commit(ctx, Change{Source: FromExternal})
	report(err)
	writeErr := write()
	_, err = j.Commit(ctx, c)
	report(err)
	return writeErr
}
