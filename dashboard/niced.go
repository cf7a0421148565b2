package dashboard

import (
	"runtime"
	"syscall"
)

// niceness is how far below the service's other work the dashboard's
// runs: at 10 the kernel gives a busy thread about a tenth of the CPU a
// thread at 0 gets, so a hook the service answers keeps its time while a
// page is drawn.
const niceness = 10

// niced runs f on an OS thread of its own at a lower priority and waits
// for it. The thread runs nothing else and ends with f (a goroutine that
// exits locked to its thread takes the thread with it), since a thread's
// priority, once lowered, cannot be raised again without privilege. What
// f runs in the thread (SQLite through cgo, templates) and the processes
// it starts (git, which inherit the thread's niceness) all run at that
// priority.
func niced(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		// Failing to lower it only costs the hooks some time.
		syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), niceness)
		f()
	}()
	<-done
}
