package scheduler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// ErrRunning is returned when another daemon holds the lock of a home.
var ErrRunning = errors.New("scheduler already running")

// LockPath is the single-instance lock of a home's daemon.
func LockPath(l tiers.Layout) string { return filepath.Join(l.StateDir(), "scheduler.lock") }

// Lock is a held daemon lock; the kernel drops it when the process dies,
// so a kill -9 never leaves a stale lock behind.
type Lock struct{ f *os.File }

// AcquireLock takes the lock without waiting and writes our pid into the
// file. The pid is written in place, not by atomic rename: a rename would
// swap the inode the lock is held on.
func AcquireLock(l tiers.Layout) (*Lock, error) {
	if err := os.MkdirAll(l.StateDir(), 0o700); err != nil {
		return nil, fmt.Errorf("create state dir: %w", err)
	}
	f, err := regfile.OpenFile(LockPath(l), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (pid %s) on %s", ErrRunning, lockPID(l), l.ZylosDir)
		}
		return nil, fmt.Errorf("lock %s: %w", LockPath(l), err)
	}
	if err := writePID(f); err != nil {
		f.Close()
		return nil, err
	}
	return &Lock{f: f}, nil
}

func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("write pid: %w", err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		return fmt.Errorf("write pid: %w", err)
	}
	return nil
}

// Release drops the lock.
func (k *Lock) Release() error { return k.f.Close() }

// lockPID is the pid recorded by the daemon holding the lock, or "unknown".
func lockPID(l tiers.Layout) string {
	data, err := regfile.ReadFile(LockPath(l))
	if pid := strings.TrimSpace(string(data)); err == nil && pid != "" {
		return pid
	}
	return "unknown"
}

// Running reports whether a daemon holds the lock, and its pid.
func Running(l tiers.Layout) (bool, string) {
	f, err := regfile.Open(LockPath(l))
	if err != nil {
		return false, ""
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return true, lockPID(l)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false, ""
}
