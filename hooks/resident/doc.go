// Package resident answers Claude Code hooks from the memory service, so
// that a hook costs a few system calls instead of a Go program's start.
//
// A hook is a new process on every prompt and every tool call, and most
// of its time goes to
// starting the Go runtime and initialising the packages the binary
// links, before any memory is read. The scheduler daemon, which runs for the
// home anyway, listens on memory/.state/hooks.sock (Server). The binary
// carries a small client in C (client.c) that runs as a constructor,
// before the Go runtime: when the process is a hook the service answers
// and the service is up, it sends the invocation (argv, environment,
// working directory, stdin) and writes back what the service answered,
// and the process exits there.
//
// The service answers every hook entry point (ZM_SERVED in client.h), and
// the commands zylos's own session start runs (ZM_COMMANDS: inject, c4
// session-init; command.go), exactly as the process would: it runs the same entry point (hooks.Run)
// with the invocation's home, clock, environment and working directory
// (code below cmd/ reads no process global, see internal/lint), the
// journal's git in the hook's environment, and its own binary (it never
// runs a binary a request names). Whenever that cannot be guaranteed it declines, before the
// client has read any of stdin, and the process answers itself: a client
// of another build or path of the binary or of another home, a timezone
// or umask other than the service's, a command line it does not parse,
// or a busy service. A service that stops answering once it accepted is failed
// open by the client after the hook's deadline, like any hook.
package resident
