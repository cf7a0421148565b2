// Package hooks owns zylos-memory's side of the Claude Code hook contract:
// reading a hook's JSON input, running each hook entry point under a
// deadline so that it fails open, answering in the current
// hookSpecificOutput format, and the command line each entry point is
// run by (Command), which package register writes into Claude Code's
// settings.
package hooks
