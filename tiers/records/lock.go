package records

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/zylos/zylos-memory/internal/flock"
)

// LockFile is the lock's name inside the records root.
const LockFile = ".index.lock"

// LockTimeout is how long a writer waits for the lock before giving up
// (the claude-memory plugin's 5 s). Unlike the plugin, it never proceeds unlocked.
var LockTimeout = 5 * time.Second

// Lock holds the records root's exclusive lock. flock is released by the
// kernel if the process dies, so there are no stale locks to break.
type Lock struct {
	root    string
	release func()
}

// AcquireLock takes root's lock, creating root if needed, waiting up to
// LockTimeout. On timeout it returns an *Error of kind LOCK_ERROR.
func AcquireLock(root string) (*Lock, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create records root: %w", err)
	}
	path := filepath.Join(root, LockFile)
	release, err := flock.AcquireWithin(path, "another records writer", LockTimeout)
	var timeout *flock.TimeoutError
	if errors.As(err, &timeout) {
		return nil, newError(ErrLock, "lock", path,
			"waited", LockTimeout.String(),
			"fix", "Another writer holds the records lock; retry shortly")
	}
	if err != nil {
		return nil, err
	}
	return &Lock{root: root, release: release}, nil
}

// Release drops the lock.
func (l *Lock) Release() error {
	l.release()
	return nil
}
