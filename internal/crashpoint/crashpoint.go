// Package crashpoint lets the crash tests kill the real binary with
// SIGKILL at a named moment, such as between two writes that must agree,
// instead of at a random time they would rarely hit. It is inert unless
// the environment variable Env names the point.
package crashpoint

import (
	"os"
	"syscall"
	"time"
)

// Env names the point at which the process kills itself. Only tests set it.
const Env = "ZYLOS_MEMORY_TEST_CRASH_AT"

// armed is read once: a crash point costs a string compare.
var armed = os.Getenv(Env)

// Hit kills the process at once, as kill -9 would, when Env names point.
func Hit(point string) {
	if armed != "" && armed == point {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		for { // the kill may land a moment after the call returns: never run on
			time.Sleep(time.Second)
		}
	}
}
