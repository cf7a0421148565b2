package records

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// LockFile is the lock's name inside the records root.
const LockFile = ".index.lock"

// LockTimeout is how long a writer waits for the lock before giving up
// (seed 003's 5 s). Unlike the plugin, it never proceeds unlocked.
var LockTimeout = 5 * time.Second

const lockPoll = 20 * time.Millisecond

// Lock holds the records root's exclusive lock. flock is released by the
// kernel if the process dies, so there are no stale locks to break.
type Lock struct{ f *os.File }

// AcquireLock takes root's lock, creating root if needed, waiting up to
// LockTimeout. On timeout it returns an *Error of kind LOCK_ERROR.
func AcquireLock(root string) (*Lock, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create records root: %w", err)
	}
	path := filepath.Join(root, LockFile)
	f, err := regfile.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	deadline := time.Now().Add(LockTimeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &Lock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			if !errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
			return nil, newError(ErrLock, "lock", path,
				"waited", LockTimeout.String(),
				"fix", "Another writer holds the records lock; retry shortly")
		}
		time.Sleep(lockPoll)
	}
}

// Release drops the lock.
func (l *Lock) Release() error { return l.f.Close() }
