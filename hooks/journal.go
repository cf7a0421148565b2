package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zylos/zylos-memory/hooks/guard"
	"github.com/zylos/zylos-memory/tiers/journal"
)

// journaled commits what a tool call changed in the memory, attributed to
// the session and the tool, after h has answered (an edit of a reference
// file is ingested into the records first, so they are one change). What
// changed before the call, outside the agent, is committed first as an
// external edit. When the change removed lines from core memory or a
// reference file, the agent is told at once, with the command that puts
// them back. The journal never fails the hook: its trouble is one line on
// stderr, once.
func journaled(h Handler) Handler {
	return func(ctx context.Context, env Env, in Input) (Answer, error) {
		j := journal.Open(env.Layout)
		j.Now = env.Now
		j.Environ = env.Environ
		if j.Off() {
			return h(ctx, env, in)
		}
		var notes []string
		note := func(err error) {
			if err != nil && !errors.Is(err, journal.ErrBusy) && j.NewProblem(err) {
				notes = append(notes, fmt.Sprintf("zylos-memory hook %s: journal: %v (memory is written; the journal catches up later)", PostToolUse.Command, err))
			}
		}
		own := journal.Change{Source: journal.FromHook, Session: in.SessionID, Tool: in.ToolName}
		// The file tools name their file; the shell may have written any.
		if in.ToolName != "Bash" {
			if _, err := j.Rel(guard.FilePath(in.ToolInput), in.Cwd); err != nil {
				// The tool wrote outside memory: nothing for the journal,
				// not even a look (what others changed waits for the
				// service, or the next command or hook in memory).
				return h(ctx, env, in)
			}
			note(commitBefore(ctx, j, in))
		}
		ans, err := h(ctx, env, in)
		if err != nil {
			return ans, err
		}
		res, jerr := j.Commit(ctx, own)
		note(jerr)
		if res != nil && len(res.Losses) > 0 {
			tellLoss(&ans, journal.Advice(res.Losses, res.Parent, env.invocation()))
		}
		if len(notes) > 0 {
			ans.Message = strings.TrimSpace(ans.Message + "\n" + strings.Join(notes, "\n"))
		}
		return ans, nil
	}
}

// commitBefore commits, as an external edit, what changed besides the
// file the tool wrote.
func commitBefore(ctx context.Context, j *journal.Journal, in Input) error {
	rel, _ := j.Rel(guard.FilePath(in.ToolInput), in.Cwd)
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
