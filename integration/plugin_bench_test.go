package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/fixture/benchtree"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// The claude-memory plugin whose scripts `records` replaces. Its Python
// scripts are extracted from a local copy of the public repository at run
// time (never kept in this project) to be measured next to the binary;
// without the copy, python3 or pydantic (its write script imports it), the
// comparison skips.
const (
	pluginRepoEnv     = "CLAUDE_MEMORY_REPO"
	pluginRepoDefault = "/work/.mirror/idnotbe+claude-memory/repo"
	pluginRev         = "e3e86d5"
)

// pluginStoreSize is the store both sides are measured on.
const pluginStoreSize = 2000

// pluginScripts returns the python interpreter (resolved past any
// version-manager shim, whose start-up is not the plugin's) and the
// plugin's hooks/scripts directory, or skips.
func pluginScripts(b *testing.B) (python, scripts string) {
	b.Helper()
	repo := os.Getenv(pluginRepoEnv)
	if repo == "" {
		repo = pluginRepoDefault
	}
	out, err := exec.Command("python3", "-c", "import pydantic, sys; print(sys.executable)").Output()
	if err != nil {
		b.Skip("python3 with pydantic not found: plugin comparison skipped")
	}
	python = strings.TrimSpace(string(out))
	if err := exec.Command("git", "-C", repo, "cat-file", "-e", pluginRev+"^{commit}").Run(); err != nil {
		b.Skipf("claude-memory %s not found in %s (set %s to a clone): plugin comparison skipped", pluginRev, repo, pluginRepoEnv)
	}
	return python, filepath.Join(extractCore(b, repo, pluginRev, "hooks/scripts"), "hooks", "scripts")
}

// pluginBenchStore is a project whose .claude/memory holds
// pluginStoreSize decisions and their index.
func pluginBenchStore(b *testing.B) (project, root string) {
	b.Helper()
	project = filepath.Join(b.TempDir(), "project")
	root = filepath.Join(project, ".claude", "memory")
	benchtree.Records(b, root, pluginStoreSize, benchtree.Decision)
	if err := os.MkdirAll(filepath.Join(root, ".staging"), 0o755); err != nil {
		b.Fatal(err)
	}
	return project, root
}

// pluginSide runs one command of a side from the project: the binary's
// `records <verb>` or the plugin's memory_<verb>.py. Besides wall time it
// adds up the CPU time (user + system) of the processes, reported as
// cpu-ms/op: on a shared machine wall time waits for other work, CPU
// time much less so.
type pluginSide struct {
	argv func(verb string) []string
	env  []string
	cpu  time.Duration
}

func newPluginSide(b *testing.B, name string) *pluginSide {
	python, scripts := pluginScripts(b)
	if name == "python" {
		return &pluginSide{
			argv: func(verb string) []string { return []string{python, filepath.Join(scripts, "memory_"+verb+".py")} },
			env:  []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "TZ=UTC"},
		}
	}
	bin := testutil.Binary(b)
	zylos := b.TempDir()
	return &pluginSide{
		argv: func(verb string) []string { return []string{bin, "records", verb} },
		env:  []string{"PATH=" + os.Getenv("PATH"), "HOME=" + zylos, "ZYLOS_DIR=" + zylos, "TZ=UTC"},
	}
}

func (s *pluginSide) run(b *testing.B, project, verb string, args ...string) {
	b.Helper()
	argv := append(s.argv(verb), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = project, s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%v: %v: %s", argv, err, out)
	}
	s.cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func (s *pluginSide) report(b *testing.B) {
	b.ReportMetric(float64(s.cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

const pluginBenchInput = `{"schema_version": "1.0", "category": "decision", "id": "bench", "title": "Bench decision %d",
 "record_status": "active", "created_at": "2026-03-15T10:30:00Z", "updated_at": "2026-03-15T10:30:00Z",
 "tags": ["bench", "topic-%d"], "related_files": null, "confidence": 0.8, "times_updated": 0,
 "changes": [{"date": "2026-03-15T10:30:00Z", "summary": "Created"}],
 "content": {"status": "accepted", "context": "measured", "decision": "keep", "rationale": ["speed"]}}`

// BenchmarkPluginWrite2k: one whole `write --action create` of a new
// decision into a store of 2,000, by the binary and by the plugin's
// memory_write.py (schema check, lock, write, index update).
func BenchmarkPluginWrite2k(b *testing.B) {
	for _, side := range []string{"binary", "python"} {
		b.Run(side, func(b *testing.B) {
			s := newPluginSide(b, side)
			project, root := pluginBenchStore(b)
			in := filepath.Join(root, ".staging", "input.json")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if err := os.WriteFile(in, fmt.Appendf(nil, pluginBenchInput, i, i%97), 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				s.run(b, project, "write", "--action", "create", "--category", "decision",
					"--target", fmt.Sprintf(".claude/memory/decisions/bench-%d.json", i), "--input", ".claude/memory/.staging/input.json")
			}
			s.report(b)
		})
	}
}

// BenchmarkPluginCandidate2k: one whole `candidate` for a decision over a
// store of 2,000, by the binary and by the plugin's memory_candidate.py.
func BenchmarkPluginCandidate2k(b *testing.B) {
	for _, side := range []string{"binary", "python"} {
		b.Run(side, func(b *testing.B) {
			s := newPluginSide(b, side)
			project, _ := pluginBenchStore(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.run(b, project, "candidate", "--category", "decision", "--root", ".claude/memory",
					"--new-info", "Decision about topic 42 changed: number 1042 now applies")
			}
			s.report(b)
		})
	}
}
