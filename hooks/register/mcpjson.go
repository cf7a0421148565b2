package register

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/zylos/zylos-memory/tiers"
)

// MCPServerName is the memory's server in .mcp.json: Claude Code names its
// tools mcp__zylos-memory__<tool>.
const MCPServerName = "zylos-memory"

// MCPFile is the home's .mcp.json, where Claude Code reads the project's
// MCP servers when it runs in the home.
func MCPFile(l tiers.Layout) string { return filepath.Join(l.ZylosDir, ".mcp.json") }

// MCPServer is the .mcp.json entry that starts the memory's server for a
// home: `<binary> --zylos-dir <home> mcp` over stdio.
func MCPServer(binary, zylosDir string) json.RawMessage {
	out, _ := object{
		{"type", marshal("stdio")},
		{"command", marshal(binary)},
		{"args", marshal([]string{"--zylos-dir", zylosDir, "mcp"})},
	}.MarshalJSON()
	return out
}

// MCP puts the memory's server into the home's .mcp.json, so a
// session started in the home has the tools (Hooks approves it in
// settings.local.json). The user's own servers and every other key stay
// as they were; a re-run changes nothing, a moved binary is updated in
// place; the previous file is kept as .mcp.json.bak-<UTC time>.
func MCP(l tiers.Layout, binary string, now time.Time) (Registration, error) {
	want := MCPServer(binary, l.ZylosDir)
	reg, err := rewriteJSON(MCPFile(l), now, func(old []byte) ([]byte, bool, error) {
		return setMember(old, "mcpServers", func(srv object) (object, bool) {
			if cur, ok := srv.get(MCPServerName); ok && sameJSON(cur, want) {
				return srv, false
			}
			return srv.set(MCPServerName, want), true
		})
	})
	if err != nil {
		return reg, fmt.Errorf("register the MCP server: %w", err)
	}
	return reg, nil
}

// setMember edits the object under key of a JSON document (both created
// when missing) with edit; an unchanged document is returned as is.
func setMember(old []byte, key string, edit func(object) (object, bool)) ([]byte, bool, error) {
	doc := object{}
	if len(bytes.TrimSpace(old)) > 0 {
		var err error
		if doc, err = parseObject(old); err != nil {
			return nil, false, err
		}
	}
	inner := object{}
	if raw, ok := doc.get(key); ok {
		var err error
		if inner, err = parseObject(raw); err != nil {
			return nil, false, fmt.Errorf("%q: %w", key, err)
		}
	}
	inner, changed := edit(inner)
	if !changed {
		return old, false, nil
	}
	raw, _ := inner.MarshalJSON()
	return indent(doc.set(key, raw)), true, nil
}

// approveServer adds name to the settings' enabledMcpjsonServers.
func approveServer(old []byte, name string) ([]byte, bool, error) {
	doc := object{}
	if len(bytes.TrimSpace(old)) > 0 {
		var err error
		if doc, err = parseObject(old); err != nil {
			return nil, false, err
		}
	}
	var enabled []string
	if raw, ok := doc.get("enabledMcpjsonServers"); ok {
		if err := json.Unmarshal(raw, &enabled); err != nil {
			return nil, false, fmt.Errorf(`"enabledMcpjsonServers" is not an array of names`)
		}
	}
	for _, n := range enabled {
		if n == name {
			return old, false, nil
		}
	}
	return indent(doc.set("enabledMcpjsonServers", marshal(append(enabled, name)))), true, nil
}

// sameJSON tells whether two JSON values are equal, whatever their
// spacing and member order.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return bytes.Equal(xs, ys)
}
