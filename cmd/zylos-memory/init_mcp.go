package main

import (
	"fmt"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/hooks/register"
)

// initMCP registers the memory's MCP server in the home's .mcp.json, as
// initHooks registers the hooks (which approve it in settings.local.json).
func initMCP(e *env) error {
	binary, err := hooks.Executable()
	if err != nil {
		return fmt.Errorf("register the MCP server: locate this binary: %w", err)
	}
	reg, err := register.MCP(e.layout, binary, e.now())
	if err != nil {
		return err
	}
	if !reg.Changed {
		fmt.Fprintln(e.stdout, "MCP server already registered in .mcp.json")
		return nil
	}
	fmt.Fprintf(e.stdout, "registered the MCP server %s in .mcp.json\n", register.MCPServerName)
	if reg.Backup != "" {
		fmt.Fprintf(e.stdout, "saved the previous .mcp.json as %s\n", e.relHome(reg.Backup))
	}
	return nil
}
