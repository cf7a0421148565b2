package resident

/*
#include <time.h>
#include "client.h"
*/
import "C"

import (
	"strings"
	"time"
)

// What client.c and the server agree on, from client.h.
const (
	magic         = C.ZM_MAGIC
	socketName    = C.ZM_SOCKET
	accept        = C.ZM_ACCEPT
	decline       = C.ZM_DECLINE
	answer        = C.ZM_ANSWER
	maxRequest    = C.ZM_MAX_REQUEST
	maxAnswer     = C.ZM_MAX_ANSWER
	acceptWaitMS  = C.ZM_ACCEPT_WAIT_MS
	maxDeadlineMS = C.ZM_MAX_DEADLINE_MS
	// defaultDeadlineMS is the client's wait for a hook without --timeout:
	// hooks.DefaultDeadline (TestClientKnowsTheDefaultDeadline).
	defaultDeadlineMS = C.ZM_DEFAULT_DEADLINE_MS
)

// served are the hook subcommands the service answers.
var served = strings.Fields(C.ZM_SERVED)

// commands are the commands of zylos's own session start the service
// answers too, as the words after the global flags.
var commands = strings.Split(C.ZM_COMMANDS, "|")

// sinceStarted is how long ago a client started waiting, by the clock
// client.c stamps its requests with (CLOCK_MONOTONIC, shared by the
// processes of a machine).
func sinceStarted(started int64) time.Duration {
	var ts C.struct_timespec
	C.clock_gettime(C.CLOCK_MONOTONIC, &ts)
	now := int64(ts.tv_sec)*1000 + int64(ts.tv_nsec)/1e6
	return time.Duration(now-started) * time.Millisecond
}
