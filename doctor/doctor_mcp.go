package doctor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/hooks/register"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// MCPTools are the tools the memory's MCP server offers.
var MCPTools = []string{"memory_search", "memory_read", "memory_save", "memory_history", "memory_status"}

// mcpProbeTimeout bounds the doctor's start of the server, initialize and
// tools/list.
const mcpProbeTimeout = 10 * time.Second

// checkMCP checks that the home's .mcp.json starts the memory's server,
// that it is approved, and that it answers initialize and lists its tools.
func checkMCP(l tiers.Layout) []Check {
	const name = "mcp server"
	data, err := regfile.ReadFile(register.MCPFile(l))
	if errors.Is(err, fs.ErrNotExist) {
		return []Check{line(Fail, name, "no .mcp.json in the home (run: zylos-memory init)")}
	}
	var doc struct {
		Servers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err == nil {
		err = json.Unmarshal(data, &doc)
	}
	if err != nil {
		return []Check{line(Fail, name, fmt.Sprintf("%s: %v", register.MCPFile(l), err))}
	}
	srv, ok := doc.Servers[register.MCPServerName]
	if !ok {
		return []Check{line(Fail, name, register.MCPServerName+" is not in .mcp.json (run: zylos-memory init)")}
	}
	checks := []Check{checkApproved(l)}
	tools, took, err := probeMCP(srv.Command, srv.Args)
	if err != nil {
		return append(checks, line(Fail, name, err.Error()))
	}
	for _, want := range MCPTools {
		if !slices.Contains(tools, want) {
			return append(checks, line(Fail, name, fmt.Sprintf("lists %s, not %s", strings.Join(tools, ", "), want)))
		}
	}
	return append(checks, line(OK, name, fmt.Sprintf("answered initialize in %v; tools %s", took.Round(time.Millisecond), strings.Join(tools, ", "))))
}

func checkApproved(l tiers.Layout) Check {
	const name = "mcp approval"
	var settings struct {
		Enabled []string `json:"enabledMcpjsonServers"`
	}
	data, err := regfile.ReadFile(l.SettingsFile())
	if err == nil {
		err = json.Unmarshal(data, &settings)
	}
	if err != nil || !slices.Contains(settings.Enabled, register.MCPServerName) {
		return line(Warn, name, register.MCPServerName+" is not in enabledMcpjsonServers: Claude Code will ask before using it (run: zylos-memory init)")
	}
	return line(OK, name, register.MCPServerName+" approved in .claude/settings.local.json")
}

// probeMCP starts the server as Claude Code does, asks initialize and
// tools/list, and answers the tools' names and the time to initialize.
func probeMCP(command string, args []string) ([]string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), mcpProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, command, args...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	//processglobal: a probe is timed on the wall clock
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("start %s: %v", command, err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"zylos-memory-doctor","version":"1"}}}`)
	lines := bufio.NewReader(stdout)
	type answer struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	read := func(id int) (json.RawMessage, error) {
		for {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				if ctx.Err() != nil {
					return nil, fmt.Errorf("no answer within %v", mcpProbeTimeout)
				}
				return nil, fmt.Errorf("the server ended: %s", firstLine(stderr.String()))
			}
			var a answer
			if json.Unmarshal(line, &a) != nil {
				return nil, fmt.Errorf("stdout carries a line that is not JSON-RPC: %.80s", line)
			}
			if a.ID != id {
				continue // a notification
			}
			if a.Error != nil {
				return nil, errors.New(a.Error.Message)
			}
			return a.Result, nil
		}
	}
	if _, err := read(1); err != nil {
		return nil, 0, fmt.Errorf("initialize: %v", err)
	}
	took := time.Since(start)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	res, err := read(2)
	if err != nil {
		return nil, took, fmt.Errorf("tools/list: %v", err)
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return nil, took, fmt.Errorf("tools/list: %v", err)
	}
	names := make([]string, len(list.Tools))
	for i, t := range list.Tools {
		names[i] = t.Name
	}
	return names, took, nil
}
