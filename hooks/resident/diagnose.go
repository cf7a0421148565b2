package resident

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strings"
	"syscall"

	"github.com/zylos/zylos-memory/internal/check"
	"github.com/zylos/zylos-memory/tiers"
)

// Diagnose is doctor's line on the service answering hooks: whether it
// listens, and whether it runs this build of the binary, the one whose
// hooks it answers (see Server.resolve).
func Diagnose(l tiers.Layout) check.Check {
	const name = "hook service"
	var pid int32
	err := throughDir(l.StateDir(), func(path string) error {
		conn, err := net.DialUnix("unix", nil, &net.UnixAddr{Net: "unix", Name: path})
		if err != nil {
			return err
		}
		defer conn.Close()
		cred, err := peerCred(conn)
		if err == nil {
			pid = cred.Pid
		}
		return err
	})
	if err != nil {
		why := err.Error()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			why = "not running"
		case errors.Is(err, syscall.ECONNREFUSED):
			why = "gone, its socket left behind"
		}
		return check.Check{Status: check.Warn, Name: name, Detail: fmt.Sprintf(
			"%s (%s): every hook answers in its own process, 2 to 8 times slower (start the service: zylos-memory scheduler run)",
			SocketPath(l), why)}
	}
	theirs, err := binaryIdentity(fmt.Sprintf("/proc/%d/exe", pid))
	ours, ownErr := binaryIdentity("/proc/self/exe")
	if err != nil || ownErr != nil || theirs != ours {
		return check.Check{Status: check.Warn, Name: name, Detail: fmt.Sprintf(
			"pid %d runs another build of zylos-memory than this one, and leaves this build's hooks to their own processes (restart the service after an upgrade)", pid)}
	}
	theirMask, err := umaskOf(fmt.Sprintf("/proc/%d/status", pid))
	ourMask, ownErr := umaskOf("/proc/self/status")
	if err == nil && ownErr == nil && theirMask != ourMask {
		return check.Check{Status: check.Warn, Name: name, Detail: fmt.Sprintf(
			"pid %d runs with umask %03o, this shell with %03o: the hooks of a session with this shell's umask answer in their own processes (start the service with the same umask)", pid, theirMask, ourMask)}
	}
	return check.Check{Status: check.OK, Name: name, Detail: fmt.Sprintf("pid %d answers the hooks (%s) on %s", pid, strings.Join(served, ", "), SocketPath(l))}
}

// throughDir calls fn with a name of dir's socket that fits in sun_path
// whatever dir's length: a path through a descriptor of dir.
func throughDir(dir string, fn func(path string) error) error {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer syscall.Close(fd)
	return fn(fmt.Sprintf("/proc/self/fd/%d/%s", fd, socketName))
}
