package resident

/*
#include "client.h"
*/
import "C"

import "strings"

// What client.c and the server agree on, from client.h.
const (
	magic        = C.ZM_MAGIC
	socketName   = C.ZM_SOCKET
	accept       = C.ZM_ACCEPT
	decline      = C.ZM_DECLINE
	answer       = C.ZM_ANSWER
	maxRequest   = C.ZM_MAX_REQUEST
	acceptWaitMS = C.ZM_ACCEPT_WAIT_MS
)

// served are the hook subcommands the service answers.
var served = strings.Fields(C.ZM_SERVED)
