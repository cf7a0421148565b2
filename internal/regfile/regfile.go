// Package regfile opens only regular files. A path taken from the home or
// from the user may name a FIFO, a socket or a device: opening a FIFO for
// reading blocks until a writer comes, and reading a device may never end.
// Every open here is non-blocking, the type is checked on the opened
// descriptor (so a file swapped after a stat cannot slip through), and
// anything but a regular file is refused with ErrNotRegular.
package regfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is what every refusal here matches with errors.Is.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError names what was found instead of a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: %s, not a regular file; refusing to open it", e.Path, kindOf(e.Mode))
}

// Is makes errors.Is(err, ErrNotRegular) hold.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	default:
		return "a special file"
	}
}

// TooLargeError is a file over the limit given to ReadFileLimit.
type TooLargeError struct {
	Path  string
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s: grew over %d bytes while read", e.Path, e.Limit)
	}
	return fmt.Sprintf("%s: file is %d bytes, over the %d-byte limit", e.Path, e.Size, e.Limit)
}

// Check reports a path that exists and is not a regular file. A missing
// path, or one that cannot be stat'ed, is left to whoever opens it. It is
// for paths handed to code that opens them itself (SQLite): stat never
// blocks, even on a FIFO.
func Check(path string) error {
	info, err := os.Stat(path)
	if err != nil || info.Mode().IsRegular() {
		return nil
	}
	return &NotRegularError{Path: path, Mode: info.Mode()}
}

// Open opens a regular file for reading.
func Open(path string) (*os.File, error) { return OpenFile(path, os.O_RDONLY, 0) }

// OpenFile is os.OpenFile for regular files only: the open itself cannot
// block, and anything else is refused with a *NotRegularError.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	fd, _, err := open(path, flag, perm)
	if err != nil {
		return nil, err
	}
	// Back to blocking, so os.NewFile treats it as the plain file it is.
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// open returns a descriptor on a regular file, opened non-blocking, and
// its status.
func open(path string, flag int, perm os.FileMode) (int, *syscall.Stat_t, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flag|syscall.O_NONBLOCK|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		// A FIFO without a reader, or a socket, fails a non-blocking
		// write open with ENXIO: say what it is.
		if err == syscall.ENXIO {
			if cerr := Check(path); cerr != nil {
				return -1, nil, cerr
			}
		}
		return -1, nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	st := new(syscall.Stat_t)
	if err := syscall.Fstat(fd, st); err != nil {
		syscall.Close(fd)
		return -1, nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return -1, nil, &NotRegularError{Path: path, Mode: modeOf(st.Mode)}
	}
	return fd, st, nil
}

func modeOf(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	case syscall.S_IFDIR:
		return fs.ModeDir
	}
	return fs.ModeIrregular
}

// ReadFile is os.ReadFile for regular files only.
func ReadFile(path string) ([]byte, error) { return ReadFileLimit(path, -1) }

// ReadFileLimit reads a regular file of at most limit bytes (no limit when
// negative); a larger one is refused with a *TooLargeError before it is
// read. It calls open, fstat, read and close directly: os.Open also
// registers every file with the network poller, which costs a third of
// the time of reading thousands of small files.
func ReadFileLimit(path string, limit int64) ([]byte, error) {
	fd, st, err := open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	if limit >= 0 && st.Size > limit {
		return nil, &TooLargeError{Path: path, Size: st.Size, Limit: limit}
	}
	// One byte more than the size reveals a file that grew since fstat.
	buf := make([]byte, 0, st.Size+1)
	for {
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) == cap(buf) {
			if limit >= 0 && int64(len(buf)) > limit {
				return nil, &TooLargeError{Path: path, Size: -1, Limit: limit}
			}
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// ReadHead reads at most n bytes from the start of a regular file, and
// its whole size: a caller that shows only the start of a file pays for
// no more than that, however large the file grew.
func ReadHead(path string, n int64) (head []byte, size int64, err error) {
	fd, st, err := open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return nil, 0, err
	}
	defer syscall.Close(fd)
	buf := make([]byte, min(n, st.Size))
	read := 0
	for read < len(buf) {
		m, err := syscall.Read(fd, buf[read:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, 0, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break
		}
		read += m
	}
	return buf[:read], st.Size, nil
}
