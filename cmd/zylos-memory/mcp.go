package main

import (
	"fmt"
	"github.com/zylos/zylos-memory/hooks"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"
)

// mcpBinary is the MCP server's own binary, installed beside this one: the
// MCP SDK's package initialisation stays out of every other command.
const mcpBinary = "zylos-memory-mcp"

func newMCPCommand() *cli.Command {
	return &cli.Command{
		Name:      "mcp",
		Usage:     "serve the memory as MCP tools over stdio (memory_search, memory_read, memory_save, memory_history, memory_status)",
		UsageText: "zylos-memory [--zylos-dir DIR] mcp",
		Action: func(c *cli.Context) error {
			e, err := envFrom(c)
			if err != nil {
				return err
			}
			server, err := mcpServerBinary()
			if err != nil {
				return err
			}
			// The server takes this process's place: its stdio, its pid
			// (the MCP client's), its signals.
			err = syscall.Exec(server, []string{mcpBinary, "--zylos-dir", e.layout.ZylosDir}, os.Environ())
			return fmt.Errorf("mcp: run %s: %w", server, err)
		},
	}
}

// mcpServerBinary finds zylos-memory-mcp beside this binary, else on PATH.
func mcpServerBinary() (string, error) {
	self, err := hooks.Executable()
	if err == nil {
		beside := filepath.Join(filepath.Dir(self), mcpBinary)
		if _, err := os.Stat(beside); err == nil {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(mcpBinary); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("mcp: %s is not installed beside %s nor on PATH; install both with `make install` (or `go install ./cmd/...`)", mcpBinary, self)
}
