package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudePluginValidate: the real client accepts the plugin and the
// marketplace of this repository, warnings included (--strict).
func TestClaudePluginValidate(t *testing.T) {
	bin := client(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(root, "plugin"), root} {
		cmd := exec.Command(bin, "plugin", "validate", "--strict", dir)
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Validation passed") {
			t.Errorf("claude plugin validate --strict %s: %v\n%s", dir, err, out)
		}
	}
}
