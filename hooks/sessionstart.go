package hooks

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/zylos/zylos-memory/tiers"
)

// contextBudget keeps injected text strictly below Claude Code's cap.
const contextBudget = ContextLimit - 1

// sessionStart injects core.md and then the C4 session-init text in one
// additionalContext. Core memory has priority: the conversation part is
// what gets cut first. Each half fails open on its own, so a broken C4
// database still leaves the agent its core memory and the other way round.
func sessionStart(ctx context.Context, env Env, in Input) (Answer, error) {
	var notes []string
	core, err := tiers.CoreContext(env.Layout)
	if err != nil {
		notes = append(notes, err.Error())
		core = "=== CORE MEMORY ===\n\ncore.md could not be read (" + err.Error() + "). Check it with: zylos-memory doctor."
	}
	c4, err := c4SessionInit(ctx, env.Layout)
	if err != nil {
		notes = append(notes, "c4: "+err.Error())
	}
	startSessionState(ctx, env, in.SessionID, c4)
	ans := ContextAnswer(SessionStart.Name, fitContext(core, c4, env.Layout.CoreFile()))
	if len(notes) > 0 {
		ans.Message = fmt.Sprintf("zylos-memory hook %s: %s (injected the rest)", SessionStart.Command, strings.Join(notes, "; "))
	}
	return ans, nil
}

// fitContext joins core and C4 context below the cap. Core memory comes
// first and keeps everything but the room the C4 sync trigger needs; the
// C4 part then gets what is left, its oldest conversations cut first.
func fitContext(core, c4, coreFile string) string {
	if text := joinContext(core, c4); textLen(text) <= contextBudget {
		return text
	}
	reserve := 0
	if c4 != "" {
		_, _, tail := splitSessionInit(c4)
		reserve = textLen(essentialC4(tail)) + len("\n\n")
	}
	core = tiers.CapContextFor(core, contextBudget-reserve, "Read the rest with the Read tool: "+coreFile+".")
	rest := contextBudget - textLen(core) - len("\n\n")
	return joinContext(core, fitSessionInit(c4, rest))
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

// textLen counts characters as Claude Code does: UTF-16 code units.
func textLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
