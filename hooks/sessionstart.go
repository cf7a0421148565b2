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
func sessionStart(ctx context.Context, env Env, _ Input) (Answer, error) {
	var notes []string
	core, err := tiers.CoreContext(env.Layout)
	if err != nil {
		notes = append(notes, err.Error())
	}
	core = tiers.CapContextFor(core, contextBudget, "Read the rest with the Read tool: "+env.Layout.CoreFile()+".")
	c4, err := c4SessionInit(ctx, env.Layout)
	if err != nil {
		notes = append(notes, err.Error())
	}
	text := joinContext(core, c4)
	if textLen(text) > contextBudget {
		sep := 0
		if core != "" {
			sep = 2
		}
		text = joinContext(core, fitSessionInit(c4, contextBudget-textLen(core)-sep))
	}
	ans := ContextAnswer(SessionStart.Name, text)
	if len(notes) > 0 {
		ans.Message = fmt.Sprintf("zylos-memory hook %s: %s (injected the rest)", SessionStart.Command, strings.Join(notes, "; "))
	}
	return ans, nil
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
