// Package hooks owns zylos-memory's side of the Claude Code hook contract:
// reading a hook's JSON input, running each hook entry point under a
// deadline so that it fails open, answering in the current
// hookSpecificOutput format, and registering the entry points in
// $ZYLOS_DIR/.claude/settings.local.json (and reading them back).
package hooks
