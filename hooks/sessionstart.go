package hooks

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/jsstring"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

// contextBudget keeps injected text strictly below Claude Code's cap.
const contextBudget = tiers.ContextLimit - 1

// sessionStart injects core.md, the team's news (teamLine) and then the
// C4 session-init text in one additionalContext. Core memory has priority: the conversation part is
// what gets cut first. Each half fails open on its own, so a broken C4
// database still leaves the agent its core memory and the other way round.
func sessionStart(ctx context.Context, env Env, in Input) (Answer, error) {
	var notes []string
	core, err := tiers.MemoryPartsHead(env.Layout, coreHeadBytes)
	if err != nil {
		notes = append(notes, err.Error())
		core = []tiers.ContextPart{{Text: "=== CORE MEMORY ===\n\ncore.md could not be read (" + err.Error() + "). Check it with: " + env.invocation() + " doctor.",
			ReadMore: "Read the rest with the Read tool: " + env.Layout.CoreFile() + "."}}
	}
	team := teamLine(env.Layout, env.invocation())
	c4, err := c4WithinShare(ctx, env)
	if err != nil {
		notes = append(notes, "c4: "+err.Error())
	}
	startSessionState(env, in.SessionID, c4.said)
	ans := ContextAnswer(SessionStart.Name, fitContext(core, team, c4.SessionInit, env.invocation()))
	if len(notes) > 0 {
		ans.Message = fmt.Sprintf("zylos-memory hook %s: %s (injected the rest)", SessionStart.Command, strings.Join(notes, "; "))
	}
	return ans, nil
}

// coreHeadBytes is as much of core.md (of each v0.7 file) as the hook reads: more than fills
// the context cap (3 bytes per UTF-16 unit at most), so a core.md of any
// size costs no more than this.
const coreHeadBytes = 64 << 10

// answerReserve is the part of the hook's deadline kept for answering
// with core memory after the C4 half had its share.
const answerReserve = 150 * time.Millisecond

// c4WithinShare is the C4 part of the context, given up once its share of
// the deadline is spent: a C4 database another process holds locked would
// otherwise keep the hook busy past its deadline, and the agent would get
// no core memory either.
func c4WithinShare(ctx context.Context, env Env) (c4Start, error) {
	share := DefaultDeadline - answerReserve
	if deadline, ok := ctx.Deadline(); ok {
		share = time.Until(deadline) - answerReserve
	}
	c4ctx, cancel := context.WithTimeout(ctx, share)
	defer cancel()
	text, err := untilDone(c4ctx, func() (c4Start, error) { return c4SessionInit(c4ctx, env) })
	if errors.Is(err, errNoAnswer) {
		return c4Start{}, fmt.Errorf("no answer within %v (is %s locked by another process?); conversations left out", share.Round(time.Millisecond), env.Layout.C4DB())
	}
	return text, err
}

// fitContext joins the memory parts (core.md, or a v0.7 home's identity,
// state and references), the team's line and the C4 context below the
// cap. Memory comes first and keeps everything but the room the team's
// line and the C4 sync trigger need, each of its parts cut within its
// share (tiers.FitParts); the C4 part then gets what is left, its oldest
// conversations cut first. cmd spells the commands the cut markers give.
func fitContext(parts []tiers.ContextPart, team string, c4 c4sync.SessionInit, cmd string) string {
	core := tiers.FitParts(parts, math.MaxInt)
	if text := joinContext(core, team, c4.String()); jsstring.Len(text) <= contextBudget {
		return text
	}
	reserve := 0
	if team != "" {
		reserve = jsstring.Len(team) + len("\n\n")
	}
	if c4.String() != "" {
		reserve += jsstring.Len(essentialC4(c4.Tail, cmd)) + len("\n\n")
	}
	head := joinContext(tiers.FitParts(parts, contextBudget-reserve), team)
	rest := contextBudget - jsstring.Len(head) - len("\n\n")
	return joinContext(head, fitSessionInit(c4, rest, cmd))
}

// joinContext separates the parts with an empty line.
func joinContext(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p = strings.TrimRight(p, "\n"); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}
