package integration

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// initLine is one GODEBUG=inittrace=1 line:
// "init <package> @1.2 ms, 0.3 ms clock, 4096 bytes, 12 allocs".
var initLine = regexp.MustCompile(`^init (\S+) @.* (\d+) allocs$`)

// Every command runs every package init, hooks included, so start-up
// work is paid on each call. The budgets leave room for the unavoidable
// third-party inits (goldmark, urfave/cli) and catch a package that
// builds a table, regexps or schemas at start-up again.
const (
	initAllocBudget    = 5000 // whole process
	ownInitAllocBudget = 100  // any one package of this module but main
)

func TestStartupInitAllocs(t *testing.T) {
	zylos := filepath.Join(t.TempDir(), "zylos")
	res := testutil.Run{ZylosDir: zylos, Env: []string{"GODEBUG=inittrace=1"}}.Exec(t, "--help")
	if res.Code != 0 {
		t.Fatalf("--help exit %d: %s", res.Code, res.Stderr)
	}
	allocs := map[string]int{}
	total := 0
	for _, line := range strings.Split(res.Stderr, "\n") {
		m := initLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		allocs[m[1]] += n
		total += n
	}
	if len(allocs) == 0 {
		t.Fatalf("no inittrace lines in stderr:\n%s", res.Stderr)
	}
	if total > initAllocBudget {
		t.Errorf("package inits allocate %d times, budget %d; largest:\n%s", total, initAllocBudget, largest(allocs, 8))
	}
	for pkg, n := range allocs {
		// main is left out: its inits register the command tree.
		if strings.HasPrefix(pkg, "github.com/zylos/") && n > ownInitAllocBudget {
			t.Errorf("init of %s allocates %d times, budget %d: build it on first use", pkg, n, ownInitAllocBudget)
		}
	}
}

func largest(allocs map[string]int, n int) string {
	pkgs := make([]string, 0, len(allocs))
	for p := range allocs {
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool { return allocs[pkgs[i]] > allocs[pkgs[j]] })
	var b strings.Builder
	for _, p := range pkgs[:min(n, len(pkgs))] {
		fmt.Fprintf(&b, "  %6d %s\n", allocs[p], p)
	}
	return b.String()
}

// BenchmarkHelpProcess: one whole `zylos-memory --help`, the floor every
// command pays (exec, runtime start, package inits).
func BenchmarkHelpProcess(b *testing.B) { benchmarkProcess(b, "--help") }

// BenchmarkVersionProcess: one whole `zylos-memory --version`, the same
// floor with the least output.
func BenchmarkVersionProcess(b *testing.B) { benchmarkProcess(b, "--version") }

func benchmarkProcess(b *testing.B, arg string) {
	zylos := filepath.Join(b.TempDir(), "zylos")
	testutil.Binary(b)
	for b.Loop() {
		if res := (testutil.Run{ZylosDir: zylos}).Exec(b, arg); res.Code != 0 {
			b.Fatalf("%s exit %d", arg, res.Code)
		}
	}
}
