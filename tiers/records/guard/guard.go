package guard

import "fmt"

// PreToolUse is Claude Code's answer shape for a PreToolUse hook.
type PreToolUse struct {
	HookSpecificOutput PreToolUseDecision `json:"hookSpecificOutput"`
}

// PreToolUseDecision is the hook-specific part of a PreToolUse answer.
type PreToolUseDecision struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// Guard decides a Write/Edit call aimed at path. It returns nil to let the
// call through (no output) or the deny answer to print on stdout.
func Guard(path, cwd string, opts Options) *PreToolUse {
	t := Classify(path, cwd, opts)
	if t.Class != Protected {
		return nil
	}
	return &PreToolUse{PreToolUseDecision{
		HookEventName:      "PreToolUse",
		PermissionDecision: "deny",
		PermissionDecisionReason: fmt.Sprintf("Direct writes to the memory records directory are blocked (%s). "+
			"Save records with `zylos-memory records write` (it replaces the plugin's memory_write.py): put the input JSON in "+
			"/tmp/.memory-write-pending-<name>.json or %s/.staging/, then run the write command.",
			t.Path, t.Root),
	}}
}
