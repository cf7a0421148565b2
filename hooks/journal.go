package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/hooks/guard"
	"github.com/zylos/zylos-memory/tiers/journal"
)

// openJournal is the home's journal as a hook's change is committed to
// it: the hook's clock, and git run in the hook's environment.
func openJournal(env Env) *journal.Journal { return env.home().Journal() }

// journalNote turns a journal failure into one line for the hook's
// stderr, once for each new problem and never for a busy repository.
func journalNote(j *journal.Journal, ev Event, err error) string {
	if err == nil || errors.Is(err, journal.ErrBusy) || !j.NewProblem(err) {
		return ""
	}
	return fmt.Sprintf("zylos-memory hook %s: journal: %v (the change waits for the next commit)", ev.Command, err)
}

// outsideFirst commits, as an external edit, whatever changed in the
// memory outside every open tool call (an editor, a script), so that
// nothing an editor did is ever folded into an agent's change. The hook's
// own answer comes first, since these hooks write no memory of their own:
// the commit takes what time is left, and none when too little is (the
// next hook, command or the service commits it). It is a stamp of the
// tree when nothing changed.
func outsideFirst(ev Event, h Handler) Handler {
	return func(ctx context.Context, env Env, in Input) (Answer, error) {
		ans, err := h(ctx, env, in)
		left := remaining(ctx) - commitMargin
		if err != nil || left <= 0 {
			return ans, err
		}
		cctx, cancel := context.WithTimeout(ctx, left)
		defer cancel()
		j := openJournal(env)
		if ev == Stop {
			j.EndSession(in.SessionID) // every tool call of the turn has ended
		}
		_, cerr := j.CommitOutside(cctx)
		if msg := journalNote(j, ev, cerr); msg != "" {
			ans.Message = strings.TrimSpace(ans.Message + "\n" + msg)
		}
		return ans, nil
	}
}

// commitMargin is the time a hook keeps, after an outside commit, to
// write its answer before its deadline.
const commitMargin = 50 * time.Millisecond

// openIntent opens the window of the tool call in, after h (the guard)
// let it run: what changed before it is committed as an external edit,
// and what changes until its PostToolUse is the call's (see journal's
// Intent). A call that names no memory file and is no shell opens none.
func openIntent(h Handler) Handler {
	return func(ctx context.Context, env Env, in Input) (Answer, error) {
		ans, err := h(ctx, env, in)
		if err != nil || ans.Output != nil {
			return ans, err // refused: the tool does not run
		}
		j := openJournal(env)
		intent := journal.Intent{ID: in.ToolUseID, Session: in.SessionID, Tool: in.ToolName, Shell: in.ToolName == "Bash"}
		if !intent.Shell {
			t, rerr := env.home().Resolve(guard.FilePath(in.ToolInput), in.Cwd)
			rel := t.Rel
			if rerr != nil {
				_, cerr := j.CommitOutside(ctx)
				ans.Message = journalNote(j, PreToolUse, cerr)
				return ans, nil
			}
			intent.Path = rel
		}
		if intent.ID == "" {
			// A client that sends no tool_use_id: the PostToolUse
			// commits as it can (see toolChange).
			_, cerr := j.CommitOutside(ctx)
			ans.Message = journalNote(j, PreToolUse, cerr)
			return ans, nil
		}
		ans.Message = journalNote(j, PreToolUse, j.OpenIntent(ctx, intent))
		return ans, nil
	}
}

// toolChange commits what a tool call changed in the memory, attributed to
// the session, the tool and the call, after h has answered (an edit of a
// reference file is ingested into the records first, so they are one
// change). When the change removed lines from core memory or a reference
// file, the agent is told at once, with the command that puts them back.
// The journal never fails the hook: its trouble is one line on stderr,
// once.
func toolChange(ev Event, h Handler) Handler {
	return func(ctx context.Context, env Env, in Input) (Answer, error) {
		j := openJournal(env)
		if j.Off() {
			return h(ctx, env, in)
		}
		rel, inMemory := "", in.ToolName == "Bash"
		if !inMemory {
			t, err := env.home().Resolve(guard.FilePath(in.ToolInput), in.Cwd)
			rel, inMemory = t.Rel, err == nil
		}
		opened := j.HasIntent(in.ToolUseID)
		var jerr error
		if inMemory && !opened && in.ToolName != "Bash" {
			jerr = commitBefore(ctx, j, rel)
		}
		ans, err := h(ctx, env, in)
		if err != nil {
			return ans, err
		}
		var res *journal.Committed
		var cerr error
		own := journal.Change{Source: journal.FromHook, Session: in.SessionID, Tool: in.ToolName}
		switch {
		case !inMemory:
			// The tool wrote outside memory: nothing of the agent's to
			// commit, so nothing an editor did can be folded into it (its
			// PreToolUse committed what was pending; the next hook or the
			// service commits what came since).
		case opened:
			// The call's are the tool's file and what the hook says it
			// wrote for it (an ingest's records, a record moved aside):
			// a file another session or an editor changed meanwhile is
			// theirs, not the call's.
			res, cerr = j.CloseIntent(ctx, in.ToolUseID, own, ans.Wrote)
		default:
			// No window was opened (no tool_use_id, or a PreToolUse that
			// did not run): a file tool's file is its own, and what else
			// was pending went first as an external edit; a shell has no
			// window to tell its changes from others', and takes all.
			res, cerr = j.Commit(ctx, own)
		}
		if cerr != nil {
			jerr = cerr
		}
		if res != nil && len(res.Losses) > 0 {
			tellLoss(&ans, journal.Advice(res.Losses, res.Parent, env.invocation()))
		}
		if msg := journalNote(j, ev, jerr); msg != "" {
			ans.Message = strings.TrimSpace(ans.Message + "\n" + msg)
		}
		return ans, nil
	}
}

// commitBefore commits, as an external edit, what changed besides the
// file rel the tool wrote.
func commitBefore(ctx context.Context, j *journal.Journal, rel string) error {
	paths, all := j.ChangedPaths()
	if all || len(paths) == 0 || (len(paths) == 1 && paths[0] == rel) {
		return nil
	}
	_, err := j.CommitExcept(ctx, journal.Change{Source: journal.FromExternal}, []string{rel})
	return err
}

// tellLoss adds the loss advice to the feedback the agent reads.
func tellLoss(ans *Answer, advice string) {
	if fb, ok := ans.Output.(*guard.PostToolUse); ok && fb != nil {
		fb.Reason = strings.TrimSpace(fb.Reason + "\n\n" + advice)
		return
	}
	if ans.Output == nil {
		ans.Output = &guard.PostToolUse{Decision: "block", Reason: advice}
	}
}
