// Package register writes zylos-memory into the Claude Code files of a
// home and reads it back: the hook entry points and the settings' "env"
// in $ZYLOS_DIR/.claude/settings.local.json (Hooks, Entries), the memory's
// MCP server in $ZYLOS_DIR/.mcp.json (MCP) and its approval. Each file is
// merged, never replaced: the user's own hooks, servers and keys stay as
// they were, in their order, and the previous file is kept beside it.
//
// It is apart from package hooks, which answers the hooks when Claude
// Code runs them: init and the doctor need these writers and readers,
// and a hook never does.
package register
