package integration

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The zylos-core releases the C4 interop is checked against: v0.7.1 and the
// v2-era C4. Their scripts are extracted from a local copy of the public
// repository at test time (never kept in this project); without it, node or
// the better-sqlite3 module those scripts import, the tests skip.
const (
	zylosCoreEnv     = "ZYLOS_CORE_REPO"
	zylosCoreDefault = "/work/.mirror/zylos-ai+zylos-core/repo"
	coreV071         = "ec0b851"
	coreV2Era        = "d28f8c3"
	// nodeDepsEnv=off skips installing better-sqlite3 (it builds from
	// source: about two minutes the first time on a machine).
	nodeDepsEnv = "ZYLOS_MEMORY_TEST_NODE_DEPS"
)

// zylosCore returns the zylos-core git directory holding rev, or skips.
func zylosCore(t *testing.T, rev string) string {
	t.Helper()
	repo := os.Getenv(zylosCoreEnv)
	if repo == "" {
		repo = zylosCoreDefault
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found: zylos-core comparison skipped")
	}
	if err := exec.Command("git", "-C", repo, "cat-file", "-e", rev+"^{commit}").Run(); err != nil {
		t.Skipf("zylos-core %s not found in %s (set %s to a clone): comparison skipped", rev, repo, zylosCoreEnv)
	}
	return repo
}

// extractCore writes the files under paths at rev into a new temp dir.
func extractCore(t testing.TB, repo, rev string, paths ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", repo, "archive", "--format=tar", rev}, paths...)...).Output()
	if err != nil {
		t.Fatalf("git archive %s %v: %v", rev, paths, err)
	}
	dest := t.TempDir()
	tr := tar.NewReader(bytes.NewReader(out))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		p := filepath.Join(dest, filepath.FromSlash(h.Name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		data, _ := io.ReadAll(tr)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dest
}

// nodeSQLite returns a node_modules directory holding better-sqlite3 (the
// module zylos-core's C4 imports), installing it once per machine and node
// version into the temp dir from the npm registry, with dotenv (the one
// module zylos-core's memory scripts import); it skips when node or
// npm is missing or the install fails (no registry).
func nodeSQLite(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found: zylos-core comparison skipped")
	}
	version, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Skipf("node --version: %v", err)
	}
	dir := filepath.Join(os.TempDir(), "zylos-memory-test-node", "better-sqlite3-"+strings.TrimSpace(string(version)))
	modules := filepath.Join(dir, "node_modules")
	probe := func() bool {
		cmd := exec.Command(node, "-e", "require('better-sqlite3')(':memory:').close(); require('dotenv')")
		cmd.Dir = dir
		return cmd.Run() == nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Skipf("node module cache: %v", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Skipf("node module cache: %v", err)
	}
	defer lock.Close()
	// Parallel test binaries install it once; the others wait here.
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Skipf("lock node module cache: %v", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if probe() {
		return modules
	}
	if os.Getenv(nodeDepsEnv) == "off" {
		t.Skipf("%s=off: better-sqlite3 not installed, zylos-core comparison skipped", nodeDepsEnv)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm not found: better-sqlite3 cannot be installed, zylos-core comparison skipped")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", "better-sqlite3@^12.6.2", "dotenv@^16.6.1")
	if out, err := cmd.CombinedOutput(); err != nil || !probe() {
		t.Skipf("better-sqlite3 could not be installed (no npm registry?): %v\n%s", err, lastLines(string(out), 5))
	}
	return modules
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// nodeC4 is one release's comm-bridge scripts (and, for v0.7.1, its
// zylos-memory scripts), ready to run.
type nodeC4 struct {
	scripts string // .../skills/comm-bridge/scripts
	memory  string // .../skills/zylos-memory/scripts
}

func newNodeC4(t *testing.T, rev string) nodeC4 {
	t.Helper()
	return newNodeSkills(t, rev, "")
}

// newNodeSkills extracts the skills into skillsDir (a temp dir when "") as
// zylos installs them under $ZYLOS_DIR/.claude/skills, so the paths they
// print are the ones of that home.
func newNodeSkills(t *testing.T, rev, skillsDir string) nodeC4 {
	t.Helper()
	repo := zylosCore(t, rev)
	modules := nodeSQLite(t)
	paths := []string{"skills/comm-bridge"}
	if rev == coreV071 {
		paths = append(paths, "skills/activity-monitor/scripts/shard-registry.js", "skills/zylos-memory")
	}
	root := extractCore(t, repo, rev, paths...)
	if skillsDir == "" {
		skillsDir = filepath.Join(root, "skills")
	} else {
		os.MkdirAll(skillsDir, 0o755)
		entries, _ := os.ReadDir(filepath.Join(root, "skills"))
		for _, e := range entries {
			if err := os.Rename(filepath.Join(root, "skills", e.Name()), filepath.Join(skillsDir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, skill := range []string{"comm-bridge", "zylos-memory"} {
		if _, err := os.Stat(filepath.Join(skillsDir, skill)); err == nil {
			if err := os.Symlink(modules, filepath.Join(skillsDir, skill, "node_modules")); err != nil {
				t.Fatal(err)
			}
		}
	}
	return nodeC4{scripts: filepath.Join(skillsDir, "comm-bridge", "scripts"), memory: filepath.Join(skillsDir, "zylos-memory", "scripts")}
}

// run runs script with args on the zylos home dir; a script of the
// memory skill is named "zylos-memory/<script>".
func (n nodeC4) run(t *testing.T, zylosDir, script string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	path := filepath.Join(n.scripts, script)
	if name, ok := strings.CutPrefix(script, "zylos-memory/"); ok {
		path = filepath.Join(n.memory, name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{path}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Dir(zylosDir), "ZYLOS_DIR=" + zylosDir, "TZ=UTC"}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("node %s: %v", script, err)
	}
	return o.String(), e.String(), code
}
