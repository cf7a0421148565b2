package testutil

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// BuildTags and BuildLDFlags are what the Makefile builds the binary
// with, so the tests and benchmarks run the binary users install.
const (
	BuildTags    = "urfave_cli_no_docs,netgo,osusergo,sqlite_omit_load_extension,sqlite_fts5"
	BuildLDFlags = "-extldflags=-static"
)

// Main runs a package's tests and then removes the binary Binary built, so
// test runs leave nothing behind. Use it as the body of TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	return code
}

// Binary builds cmd/zylos-memory once per test process and returns its path.
// ZYLOS_MEMORY_BIN, when set, names a prebuilt binary to test instead.
func Binary(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("ZYLOS_MEMORY_BIN"); p != "" {
		return p
	}
	buildOnce.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			buildErr = err
			return
		}
		binDir, err = os.MkdirTemp("", "zylos-memory-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(binDir, "zylos-memory")
		cmd := exec.Command("go", "build", "-tags", BuildTags, "-ldflags", BuildLDFlags, "-o", binPath, "./cmd/zylos-memory")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New("go build ./cmd/zylos-memory: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		tb.Fatalf("cannot build the binary (run: go build -o bin/zylos-memory ./cmd/zylos-memory): %v", buildErr)
	}
	return binPath
}

// MCPBinary builds cmd/zylos-memory-mcp once per test process beside the
// binary Binary answers (where `zylos-memory mcp` looks for it) and
// returns zylos-memory's path: tests start the server as users do.
func MCPBinary(tb testing.TB) string {
	tb.Helper()
	return mcpServer.besideBinary(tb)
}

// ScanBinary builds cmd/zylos-memory-scan once per test process beside the
// binary Binary answers (where zylos-memory looks for its secret scanner)
// and returns zylos-memory's path. With ZYLOS_MEMORY_BIN set, the scanner
// must already be beside that binary, as `make build` leaves it.
func ScanBinary(tb testing.TB) string {
	tb.Helper()
	return secretScanner.besideBinary(tb)
}

// companion is a binary of its own that zylos-memory runs from beside
// itself, built by the tests once per process.
type companion struct {
	name string // file name beside zylos-memory, and its package under cmd/
	once sync.Once
	err  error
}

var (
	mcpServer     = &companion{name: "zylos-memory-mcp"}
	secretScanner = &companion{name: "zylos-memory-scan"}
)

func (c *companion) besideBinary(tb testing.TB) string {
	tb.Helper()
	bin := Binary(tb)
	if os.Getenv("ZYLOS_MEMORY_BIN") != "" {
		return bin
	}
	c.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			c.err = err
			return
		}
		cmd := exec.Command("go", "build", "-tags", BuildTags, "-ldflags", BuildLDFlags,
			"-o", filepath.Join(filepath.Dir(bin), c.name), "./cmd/"+c.name)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			c.err = errors.New("go build ./cmd/" + c.name + ": " + err.Error() + "\n" + string(out))
		}
	})
	if c.err != nil {
		tb.Fatalf("cannot build %s (run: make build): %v", c.name, c.err)
	}
	return bin
}

func moduleRoot() (string, error) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above " + file)
		}
		dir = parent
	}
}

// Result is what one run of the binary left behind.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run is how a test runs the binary as a user would: a clean environment
// with HOME and ZYLOS_DIR set, TZ=UTC and a fixed clock unless env
// overrides them (entries "KEY=value"; "KEY=" removes KEY).
type Run struct {
	ZylosDir string
	Home     string
	Env      []string
	Stdin    string
	Dir      string
	Timeout  time.Duration
}

// Exec runs the binary with args and returns its outputs and exit code.
func (r Run) Exec(tb testing.TB, args ...string) Result {
	tb.Helper()
	timeout := r.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	bin := Binary(tb) // built before the clock starts: a build is not the run
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = r.environ()
	cmd.Dir = r.Dir
	cmd.Stdin = strings.NewReader(r.Stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	default:
		tb.Fatalf("run zylos-memory %v: %v", args, err)
	}
	if ctx.Err() != nil {
		tb.Fatalf("zylos-memory %v did not finish within %v", args, timeout)
	}
	return res
}

// Environ is the environment Exec runs the binary with, for tests that
// start the process themselves.
func (r Run) Environ() []string { return r.environ() }

func (r Run) environ() []string {
	home := r.Home
	if home == "" && r.ZylosDir != "" {
		home = filepath.Dir(r.ZylosDir)
	}
	env := map[string]string{
		"PATH":             os.Getenv("PATH"),
		"HOME":             home,
		"TZ":               "UTC",
		"ZYLOS_MEMORY_NOW": "2026-03-15T10:30:00Z",
		// The homes tests build are v2 homes unless they hold v0.7 files
		// (which win over it): a home without memory files is otherwise
		// taken for today's zylos, v0.7.1. Env "ZYLOS_MEMORY_LAYOUT="
		// runs on a home as the binary finds it.
		"ZYLOS_MEMORY_LAYOUT": "v2",
	}
	if r.ZylosDir != "" {
		env["ZYLOS_DIR"] = r.ZylosDir
	}
	for _, kv := range r.Env {
		k, v, _ := strings.Cut(kv, "=")
		if v == "" {
			delete(env, k)
		} else {
			env[k] = v
		}
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}
