package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// The hooks start zylos-memory whenever the memory service is down, so
// every package linked into it costs each hook its initialisation. The
// heavy ones live in binaries of their own, which zylos-memory runs from
// beside itself: the MCP SDK in zylos-memory-mcp, gitleaks in
// zylos-memory-scan. This holds them there.
func TestHeavyPackagesStayInTheirOwnBinaries(t *testing.T) {
	const (
		gitleaks = "github.com/zricethezav/gitleaks/v8"
		detector = "github.com/zylos/zylos-memory/internal/secretscan/gitleaks"
		mcpSDK   = "github.com/modelcontextprotocol/go-sdk"
	)
	for binary, kept := range map[string][]string{
		"github.com/zylos/zylos-memory/cmd/zylos-memory":     {gitleaks, detector, mcpSDK},
		"github.com/zylos/zylos-memory/cmd/zylos-memory-mcp": {gitleaks, detector},
	} {
		out, err := exec.Command("go", "list", "-tags", testutil.BuildTags, "-deps", binary).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", binary, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, k := range kept {
				if dep == k || strings.HasPrefix(dep, k+"/") {
					t.Errorf("%s links %s; it belongs only in its own binary", binary, dep)
				}
			}
		}
	}
}
