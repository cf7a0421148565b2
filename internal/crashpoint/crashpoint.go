// Package crashpoint lets the crash-safety tests kill the process with a
// real SIGKILL at a named point inside a write, where a kill from outside
// would land only by luck.
//
// The points fire only when the test-only variable ZYLOS_MEMORY_TEST_CRASH_AT
// names them ("point", or "point#N" for its N-th pass); nothing else reads
// it, and in normal use it is unset.
package crashpoint

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Env is the test-only variable naming the point to die at.
const Env = "ZYLOS_MEMORY_TEST_CRASH_AT"

var (
	mu     sync.Mutex
	passes = map[string]int{}
)

// At kills the process with SIGKILL when Env names point (and, with #N,
// this is its N-th pass).
func At(point string) {
	if hit(point) {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way; never run past the point
	}
}

// PanicAt panics when Env names point (and, with #N, this is its N-th
// pass): for the tests that a panic in one call of a long-lived process
// does not take the process down.
func PanicAt(point string) {
	if hit(point) {
		panic("test panic at " + point)
	}
}

func hit(point string) bool {
	want, ok := os.LookupEnv(Env)
	if !ok {
		return false
	}
	name, nth, counted := strings.Cut(want, "#")
	if name != point {
		return false
	}
	n := 1
	if counted {
		n, _ = strconv.Atoi(nth)
	}
	mu.Lock()
	defer mu.Unlock()
	passes[point]++
	return passes[point] == n
}
