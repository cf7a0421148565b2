package guard

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zylos/zylos-memory/tiers/records"
)

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

// Decide is the PreToolUse decision on any tool call: a Bash command
// line is checked for clear write targets, any other tool for the file it
// names. It returns nil to let the call through.
func Decide(toolName string, toolInput json.RawMessage, cwd string, opts Options) *PreToolUse {
	if toolName != "Bash" {
		return Guard(FilePath(toolInput), cwd, opts)
	}
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(toolInput, &in) != nil {
		return nil
	}
	if cwd == "" {
		cwd = opts.Cwd
	}
	for _, target := range WriteTargets(in.Command, cwd, opts.getenv) {
		if t := Classify(target, cwd, opts); t.Class == Protected {
			return deny(fmt.Sprintf("Shell commands may read the memory records directory but not write into it (%s). "+
				"Change a record with `%s records write --action create|update|retire|archive --target %s ...` "+
				"(see `%[2]s records write --help`).", t.Path, opts.command(), t.Path))
		}
	}
	return nil
}

// Guard decides a Write/Edit/MultiEdit/NotebookEdit call aimed at path. It
// returns nil to let the call through (no output) or the deny answer to
// print on stdout.
func Guard(path, cwd string, opts Options) *PreToolUse {
	t := Classify(path, cwd, opts)
	if t.Class != Protected {
		return nil
	}
	staged := t.Root + "/.staging/<name>.json"
	category := "<category>"
	if folder, _, ok := strings.Cut(t.Rel, "/"); ok && records.CategoryOfFolder(folder) != "" {
		category = records.CategoryOfFolder(folder)
	}
	return deny(fmt.Sprintf("Direct writes to the memory records directory are blocked (%s). "+
		"Save the record through records write (it replaces the plugin's memory_write.py): write its JSON to %s (allowed), then run "+
		"`%s records write --action create --category %s --target %s --input %s` "+
		"(to change an existing record: --action update --hash <md5 of the file as read>).",
		t.Path, staged, opts.command(), category, t.Path, staged))
}

func deny(reason string) *PreToolUse {
	return &PreToolUse{PreToolUseDecision{
		HookEventName:            "PreToolUse",
		PermissionDecision:       "deny",
		PermissionDecisionReason: reason,
	}}
}
