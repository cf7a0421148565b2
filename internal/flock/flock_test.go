package flock

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A lock another process holds is waited for up to Wait, then refused
// with a message naming the holder; once released it is taken.
func TestAcquireWaitsBoundedForAnotherProcess(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) not installed: no second process to hold the lock")
	}
	path := filepath.Join(t.TempDir(), "locks", "x.lock")
	release, err := Acquire(path, "a test")
	if err != nil {
		t.Fatal(err)
	}
	release()
	holder := exec.Command("flock", path, "sleep", "2")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Wait()
	for start := time.Now(); ; {
		// Until flock(1) has the lock, Acquire may still get it.
		if err := exec.Command("flock", "-n", path, "true").Run(); err != nil {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("flock(1) never took the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer func(w time.Duration) { Wait = w }(Wait)
	Wait = 100 * time.Millisecond
	_, err = Acquire(path, "another consolidation")
	var timeout *TimeoutError
	if !errors.As(err, &timeout) || !strings.Contains(err.Error(), "another consolidation holds "+path) {
		t.Fatalf("err = %v, want a TimeoutError naming the holder", err)
	}
	Wait = 30 * time.Second
	release, err = Acquire(path, "another consolidation")
	if err != nil {
		t.Fatalf("after the holder exits: %v", err)
	}
	release()
}
