// Package crashpoint lets the crash-safety tests kill the process with a
// real SIGKILL at a named point inside a write, where a kill from outside
// would land only by luck.
//
// The points fire only when the test-only variable ZYLOS_MEMORY_TEST_CRASH_AT
// names them; nothing else reads it, and in normal use it is unset.
package crashpoint

import (
	"os"
	"syscall"
)

// Env is the test-only variable naming the point to die at.
const Env = "ZYLOS_MEMORY_TEST_CRASH_AT"

// At kills the process with SIGKILL when Env names point.
func At(point string) {
	if os.Getenv(Env) == point {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way; never run past the point
	}
}
