package register

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/tiers"
)

func TestRegisterMCPKeepsTheUsersServers(t *testing.T) {
	l := tiers.Layout{ZylosDir: filepath.Join(t.TempDir(), "zylos")}
	os.MkdirAll(l.ZylosDir, 0o755)
	user := `{"mcpServers": {"mine": {"command": "my-server", "env": {"K": "v"}}}, "note": "kept"}`
	os.WriteFile(MCPFile(l), []byte(user), 0o600)

	reg, err := MCP(l, "/opt/bin/zylos-memory", regTime)
	if err != nil || !reg.Changed {
		t.Fatalf("first registration: %+v %v", reg, err)
	}
	want := `{
  "mcpServers": {
    "mine": {
      "command": "my-server",
      "env": {
        "K": "v"
      }
    },
    "zylos-memory": {
      "type": "stdio",
      "command": "/opt/bin/zylos-memory",
      "args": [
        "--zylos-dir",
        "` + l.ZylosDir + `",
        "mcp"
      ]
    }
  },
  "note": "kept"
}
`
	got, _ := os.ReadFile(MCPFile(l))
	if string(got) != want {
		t.Errorf(".mcp.json:\n%s\nwant\n%s", got, want)
	}
	if old, _ := os.ReadFile(reg.Backup); string(old) != user {
		t.Errorf("backup %s holds %q", reg.Backup, old)
	}
	if st, _ := os.Stat(MCPFile(l)); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the user's 0600", st.Mode().Perm())
	}
	if again, err := MCP(l, "/opt/bin/zylos-memory", regTime); err != nil || again.Changed {
		t.Errorf("re-run: %+v %v; want no change", again, err)
	}
	if moved, err := MCP(l, "/usr/local/bin/zylos-memory", regTime); err != nil || !moved.Changed {
		t.Errorf("moved binary: %+v %v; want the entry updated", moved, err)
	}
	got, _ = os.ReadFile(MCPFile(l))
	if string(got) == want || len(got) != len(want)+len("/usr/local")-len("/opt") {
		t.Errorf("after the move:\n%s", got)
	}
}

func TestRegisterMCPLeavesMalformedUntouched(t *testing.T) {
	for name, content := range map[string]string{
		"not json":             `{"mcpServers": {`,
		"servers not object":   `{"mcpServers": []}`,
		"duplicate key":        `{"mcpServers": {}, "mcpServers": {}}`,
		"top level not object": `[1]`,
	} {
		t.Run(name, func(t *testing.T) {
			l := tiers.Layout{ZylosDir: t.TempDir()}
			os.WriteFile(MCPFile(l), []byte(content), 0o644)
			_, err := MCP(l, "/bin/zylos-memory", regTime)
			var bad *MalformedError
			if !errors.As(err, &bad) {
				t.Fatalf("err = %v, want a MalformedError", err)
			}
			if got, _ := os.ReadFile(MCPFile(l)); string(got) != content {
				t.Errorf("the file was changed: %s", got)
			}
		})
	}
}

func TestRegisterApprovesTheMCPServer(t *testing.T) {
	l := homeWithSettings(t, `{"enabledMcpjsonServers": ["mine"]}`)
	if _, err := Hooks(l, "/bin/zylos-memory", []hooks.Event{hooks.SessionStart}, regTime); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(l.SettingsFile())
	if want := "\"enabledMcpjsonServers\": [\n    \"mine\",\n    \"zylos-memory\"\n  ]"; !strings.Contains(string(got), want) {
		t.Errorf("settings:\n%s\nwant %q", got, want)
	}
}
