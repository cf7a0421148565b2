package tiers

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
	"golang.org/x/sys/unix"
)

// readSteady reads path as regfile.ReadFileLimit does, under a read
// lease where one can be had: a file being written in place (truncated,
// then written, as Node's writeFileSync does) is read once its writer
// closed it, and a read an in-place writer's open cut into is done again
// (up to rewriteRounds times), so that a reader never takes a torn file
// for one whose entries were removed. A file replaced by a rename reads
// whole either way.
func readSteady(path string, limit int64) ([]byte, error) {
	for round := 1; ; round++ {
		f, err := regfile.Open(path)
		if err != nil {
			return regfile.ReadFileLimit(path, limit)
		}
		leased := holdLease(f, leaseWait)
		data, err := regfile.ReadFileLimit(path, limit)
		steady := !leased || leaseIntact(f)
		if leased {
			dropLease(f)
		}
		f.Close()
		if steady || err != nil || round == rewriteRounds {
			return data, err
		}
	}
}

func readFromStart(f *os.File) ([]byte, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// holdLease takes a read lease on f, waiting up to wait while another
// process has the file open for writing. It reports false when it could
// not: leases unsupported here, the file owned by another user, or a
// writer that kept it open.
func holdLease(f *os.File, wait time.Duration) bool {
	//processglobal: a deadline on the wall clock
	end := time.Now().Add(wait)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		_, err := fcntl(f, unix.F_SETLEASE, unix.F_RDLCK)
		if err == nil {
			return true
		}
		//processglobal: a deadline on the wall clock
		if !errors.Is(err, unix.EAGAIN) || time.Now().After(end) {
			return false
		}
		time.Sleep(pause)
	}
}

// leaseIntact reports whether f's lease is still held and no one has
// asked to break it (an open for writing or a truncate).
func leaseIntact(f *os.File) bool {
	v, err := fcntl(f, unix.F_GETLEASE, 0)
	return err == nil && v == unix.F_RDLCK
}

// dropLease lets an opener waiting on f's lease go on.
func dropLease(f *os.File) { fcntl(f, unix.F_SETLEASE, unix.F_UNLCK) }

func fcntl(f *os.File, cmd, arg int) (int, error) {
	c, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var v int
	var ferr error
	if err := c.Control(func(fd uintptr) { v, ferr = unix.FcntlInt(fd, cmd, arg) }); err != nil {
		return 0, err
	}
	return v, ferr
}
