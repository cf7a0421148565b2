// Package flock takes the exclusive advisory locks that serialise the
// service's writers (rotation, consolidation, the sync ledger), always
// with a bounded wait: a run that cannot get the lock in time says who
// holds it and gives up instead of hanging behind it.
//
// flock(2) locks belong to an open file description and are dropped by
// the kernel when the holder dies, so there are no stale locks to break.
package flock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// Wait is how long Acquire waits for a lock held by another process. The
// work done under these locks takes seconds at most.
var Wait = 30 * time.Second

const poll = 20 * time.Millisecond

// TimeoutError is a lock that stayed held for the whole wait.
type TimeoutError struct {
	Path   string
	Holder string // what holds it, as a user would say
	Waited time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s holds %s; gave up after waiting %v (try again once it has finished)", e.Holder, e.Path, e.Waited)
}

// Acquire creates path if needed and locks it exclusively, waiting up to
// Wait for another holder (described as holder in the error) to let go.
// The returned func releases the lock.
func Acquire(path, holder string) (release func(), err error) {
	return AcquireWithin(path, holder, Wait)
}

// AcquireWithin is Acquire with a wait of its own.
func AcquireWithin(path, holder string, wait time.Duration) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create lock dir: %w", err)
	}
	f, err := regfile.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	//processglobal: a deadline on the wall clock
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		//processglobal: a deadline on the wall clock
		if time.Now().After(deadline) {
			f.Close()
			return nil, &TimeoutError{Path: path, Holder: holder, Waited: wait}
		}
		time.Sleep(poll)
	}
}
