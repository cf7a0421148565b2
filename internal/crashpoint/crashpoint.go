// Package crashpoint lets the crash-safety tests kill the process with a
// real SIGKILL at a named point inside a write, where a kill from outside
// would land only by luck, and lets the race tests hold a write at a named
// point while another process acts.
//
// The points fire only when the test-only variable ZYLOS_MEMORY_TEST_CRASH_AT
// (or ZYLOS_MEMORY_TEST_PAUSE_AT) names them ("point", or "point#N" for its
// N-th pass); nothing else reads them, and in normal use they are unset.
package crashpoint

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Env is the test-only variable naming the point to die at.
const Env = "ZYLOS_MEMORY_TEST_CRASH_AT"

// PauseEnv is the test-only variable naming a point to pause at and a
// directory: "point@dir" or "point#N@dir". At the point the process
// creates dir/reached and waits until dir/resume exists (at most
// PauseLimit), so a test can act in between without guessing at timing.
const PauseEnv = "ZYLOS_MEMORY_TEST_PAUSE_AT"

// PauseLimit bounds a pause: a test that never resumes only slows its
// process.
const PauseLimit = 30 * time.Second

var (
	mu     sync.Mutex
	passes = map[string]int{}
)

// At kills the process with SIGKILL when Env names point (and, with #N,
// this is its N-th pass).
func At(point string) {
	//processglobal: kill points are armed in the environment of the process they stop
	if want, ok := os.LookupEnv(Env); ok && hit(Env, want, point) {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way; never run past the point
	}
}

// PanicAt panics when Env names point (and, with #N, this is its N-th
// pass): for the tests that a panic in one call of a long-lived process
// does not take the process down.
func PanicAt(point string) {
	//processglobal: kill points are armed in the environment of the process they stop
	if want, ok := os.LookupEnv(Env); ok && hit(Env, want, point) {
		panic("test panic at " + point)
	}
}

// Pause holds the process at point when PauseEnv names it (see PauseEnv).
func Pause(point string) {
	//processglobal: kill points are armed in the environment of the process they stop
	want, ok := os.LookupEnv(PauseEnv)
	if !ok {
		return
	}
	spec, dir, _ := strings.Cut(want, "@")
	if !hit(PauseEnv, spec, point) {
		return
	}
	os.WriteFile(filepath.Join(dir, "reached"), nil, 0o644)
	//processglobal: a pause on the wall clock
	for end := time.Now().Add(PauseLimit); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "resume")); err == nil {
			return
		}
	}
}

// hit counts a pass of point for variable env and reports whether want
// ("point" or "point#N") names this pass.
func hit(env, want, point string) bool {
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
	passes[env+" "+point]++
	return passes[env+" "+point] == n
}
