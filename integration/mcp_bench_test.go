package integration

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zylos/zylos-memory/fixture/benchtree"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// BenchmarkMCPStartToInitialize: from starting the server to its
// initialize answer, as the SDK's client sees it, the way .mcp.json starts
// it (`zylos-memory mcp`, which execs zylos-memory-mcp) and with the exec
// saved; the session is then closed and the process reaped, untimed.
func BenchmarkMCPStartToInitialize(b *testing.B) {
	zylos := mcpHome(b)
	bin := testutil.MCPBinary(b)
	env := testutil.Run{ZylosDir: zylos}.Environ()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	for _, c := range []struct{ name, path, arg string }{
		{"zylos-memory_mcp", bin, "mcp"},
		{"server-binary-directly", filepath.Join(filepath.Dir(bin), "zylos-memory-mcp"), "--zylos-dir=" + zylos},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(c.path, c.arg)
				cmd.Env = env
				s, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkMCPSearchCall: one memory_search call on an open session over
// 10,000 records and 1,000 markdown entries with a warm index, the
// search command's work without its process start.
func BenchmarkMCPSearchCall(b *testing.B) {
	zylos := benchtree.Home(b, 10000, 1000).ZylosDir
	if res := (testutil.Run{ZylosDir: zylos}).Exec(b, "reindex"); res.Code != 0 {
		b.Fatalf("reindex: %+v", res)
	}
	s, _ := mcpSession(b, zylos)
	args := map[string]any{"query": "kafka latency"}
	if got := mustCall(b, s, "memory_search", args); !strings.Contains(got, "latency") {
		b.Fatalf("search answered %q", got)
	}
	for b.Loop() {
		mustCall(b, s, "memory_search", args)
	}
}

// BenchmarkMCPSearchCommandProcess: the same search as a `zylos-memory
// search` process, for comparison with the call on an open session.
func BenchmarkMCPSearchCommandProcess(b *testing.B) {
	zylos := benchtree.Home(b, 10000, 1000).ZylosDir
	run := testutil.Run{ZylosDir: zylos}
	if res := run.Exec(b, "reindex"); res.Code != 0 {
		b.Fatalf("reindex: %+v", res)
	}
	for b.Loop() {
		if res := run.Exec(b, "search", "kafka", "latency"); res.Code != 0 {
			b.Fatalf("%+v", res)
		}
	}
}

// TestMCPToolListSize logs what the tool list costs the model's context
// on every request (Claude Code's plugin details leaves MCP tools out).
func TestMCPToolListSize(t *testing.T) {
	s, _ := mcpSession(t, mcpHome(t))
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(list.Tools)
	t.Logf("tools/list: %d tools, %d bytes of JSON (about %d tokens at 4 bytes a token)", len(list.Tools), len(data), len(data)/4)
	if len(data) > 6000 {
		t.Errorf("the tool list is %d bytes: keep the descriptions short", len(data))
	}
}
