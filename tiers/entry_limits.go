package tiers

import (
	"fmt"
	"os"
	"syscall"
)

// MaxEntryFileSize bounds the files parsed into entries. A tier file is a
// few kilobytes; a runaway one (a 50 MB core.md) would cost seconds and
// gigabytes to parse, so it is reported instead of parsed.
const MaxEntryFileSize = 4 << 20

// UnparsedError is a tier file that is not parsed into entries: over
// MaxEntryFileSize, or not a regular file (a directory named core.md).
type UnparsedError struct {
	Path   string
	Reason string
}

func (e *UnparsedError) Error() string { return e.Path + ": " + e.Reason }

// ReadTierFile reads a tier file for parsing, refusing one it should not
// parse without reading it. It calls open, fstat, read and close directly:
// os.Open also registers every file with the network poller, which costs
// a third of the time of reading 3,650 small session logs.
func ReadTierFile(path string) ([]byte, error) {
	fd, err := openRead(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return nil, &UnparsedError{path, "not a regular file; not parsed into entries"}
	case st.Size > MaxEntryFileSize:
		return nil, &UnparsedError{path, fmt.Sprintf("file is %d bytes; files over %d bytes are not parsed into entries", st.Size, MaxEntryFileSize)}
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
			if len(buf) > MaxEntryFileSize {
				return nil, &UnparsedError{path, fmt.Sprintf("file grew over %d bytes while read; not parsed into entries", MaxEntryFileSize)}
			}
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// openRead opens path read-only, retrying when a signal interrupts it.
func openRead(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// unparsedEntry stands for a file that was not parsed, so the report names
// it among the malformed entries.
func unparsedEntry(name string, err *UnparsedError) Entry {
	return Entry{File: name, Line: 1, Kind: KindOf(name), Problem: err.Reason}
}
