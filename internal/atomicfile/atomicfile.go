// Package atomicfile writes files so that a reader, a concurrent writer or a
// crash sees either the old content or the new one, never a torn mix.
//
// Every write in zylos-memory goes through WriteFile: a unique temp file in
// the target's own directory (so rename never crosses a filesystem), write,
// fsync, close, rename over the target, fsync the directory.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/internal/regfile"
	"golang.org/x/sys/unix"
)

// tempInfix joins a target's name and the random part of its temp file:
// the temp of NAME is ".NAME.tmp-<digits>" (os.CreateTemp's pattern).
const tempInfix = ".tmp-"

// createTemp is a variable so tests can inject ENOSPC or a crash between
// writing and renaming.
var createTemp = os.CreateTemp

// WriteFile atomically replaces path with data. perm applies when the file is
// new; an existing file keeps its mode.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write atomically replaces path with what fill writes. If fill fails, the
// target is left untouched and the temp file removed.
func Write(path string, perm os.FileMode, fill func(io.Writer) error) error {
	tmp, err := stage(path, perm, fill)
	if err != nil {
		return err
	}
	crashpoint.At("atomicfile-before-rename")
	if err = os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return SyncDir(filepath.Dir(path))
}

// Stage writes data to a new temp file beside path (with path's mode when
// it exists), synced and closed, and answers its name: the first half of
// WriteFile, for a caller that puts it in place itself (see Exchange).
// The caller removes the temp file if it does not use it.
func Stage(path string, data []byte, perm os.FileMode) (string, error) {
	return stage(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func stage(path string, perm os.FileMode, fill func(io.Writer) error) (name string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if info, statErr := os.Stat(path); statErr == nil {
		if !info.Mode().IsRegular() {
			return "", fmt.Errorf("write %s: not a regular file", path)
		}
		perm = info.Mode().Perm()
	}
	tmp, err := createTemp(dir, "."+base+tempInfix+"*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return "", fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return tmp.Name(), nil
}

// ErrNoExchange says the filesystem cannot swap two names atomically
// (renameat2 RENAME_EXCHANGE): the caller falls back to a rename.
var ErrNoExchange = errors.New("atomic exchange not supported")

// Exchange swaps the files named a and b in one step: no one ever sees
// either name missing, and whatever b named at that instant is then
// named a, for the caller to check. Both must be in the same directory
// (so on one filesystem). It fails with ErrNoExchange (wrapped) where the
// kernel or the filesystem cannot do it. The directory is not synced.
func Exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return fmt.Errorf("exchange %s: %w (%v)", b, ErrNoExchange, err)
	}
	if err != nil {
		return fmt.Errorf("exchange %s: %w", b, err)
	}
	return nil
}

// WriteFileUnsynced replaces path with data through a temp file and a
// rename, as WriteFile, but syncs neither: a process killed at any moment
// leaves the old or the new file. It is for batches of many small files
// that are synced together afterwards with SyncFiles, where a sync with
// each write would also sync its directory, and the files a write
// updates with it, once per file.
func WriteFileUnsynced(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if info, statErr := os.Stat(path); statErr == nil {
		if !info.Mode().IsRegular() {
			return fmt.Errorf("write %s: not a regular file", path)
		}
		perm = info.Mode().Perm()
	}
	tmp, err := createTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// SyncFiles fsyncs each of paths and then each of their directories
// once: the sync that ends a batch of WriteFileUnsynced.
func SyncFiles(paths []string) error {
	dirs := map[string]bool{}
	var order []string
	for _, p := range paths {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // replaced or removed later in the batch
		}
		if err != nil {
			return fmt.Errorf("sync %s: %w", p, err)
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return fmt.Errorf("sync %s: %w", p, err)
		}
		if d := filepath.Dir(p); !dirs[d] {
			dirs[d] = true
			order = append(order, d)
		}
	}
	for _, d := range order {
		if err := SyncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// SyncDir fsyncs a directory so that a rename or a new entry in it survives
// a power loss.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	return nil
}

// CreateExclusive atomically creates path with data only if it does not exist
// yet; it reports os.ErrExist (wrapped) otherwise. Used where a file must never
// be overwritten, such as a seeded template or a rotation target.
func CreateExclusive(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := createTemp(dir, "."+base+tempInfix+"*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("create %s: sync: %w", path, err)
	}
	// A hard link fails with EEXIST instead of replacing, which rename cannot.
	if err = os.Link(tmp.Name(), path); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return SyncDir(dir)
}

// Append adds data to the end of the existing file path in one write and
// syncs it. It is for files that others append to without a lock (session
// logs, reference files): an O_APPEND write lands whole after theirs,
// where replacing the file could drop a line they added meanwhile.
func Append(path string, data []byte) error {
	f, err := regfile.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: sync: %w", path, err)
	}
	return f.Close()
}

// StaleAfter is the age past which a temp file can only be one a killed
// write left behind: a write takes milliseconds.
const StaleAfter = time.Minute

// Sweep removes from each dir the temp files of this package (by name:
// ".NAME.tmp-<digits>", a regular file) older than StaleAfter, which a
// process killed between creating and renaming them left behind. Commands
// that write into a directory sweep it first. It is best effort: a dir
// that cannot be read is left alone. It returns the number removed.
func Sweep(dirs ...string) int {
	removed := 0
	//processglobal: the wall clock, which file modification times are compared with
	now := time.Now()
	for _, dir := range dirs {
		removed += removeTemps(dir, func(_ string, info os.FileInfo) bool { return now.Sub(info.ModTime()) >= StaleAfter })
	}
	return removed
}

// RemoveTempsOf removes the temp files of path's own writes
// (".NAME.tmp-<digits>" beside it) whatever their age: for a caller that
// holds the lock every writer of path takes, so none of them is live.
func RemoveTempsOf(path string) int {
	dir, base := filepath.Split(path)
	prefix := "." + base + tempInfix
	return removeTemps(dir, func(name string, _ os.FileInfo) bool { return strings.HasPrefix(name, prefix) })
}

// removeTemps removes the regular temp files of dir that remove picks.
func removeTemps(dir string, remove func(name string, info os.FileInfo) bool) int {
	if dir == "" {
		dir = "."
	}
	d, err := os.Open(dir)
	if err != nil {
		return 0
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	removed := 0
	for _, name := range names {
		if !IsTempName(name) {
			continue
		}
		path := filepath.Join(dir, name)
		info, err := os.Lstat(path)
		if err == nil && info.Mode().IsRegular() && remove(name, info) && os.Remove(path) == nil {
			removed++
		}
	}
	return removed
}

// IsTempName reports whether name is a temp file name of this package.
func IsTempName(name string) bool {
	i := strings.LastIndex(name, tempInfix)
	if len(name) < 2 || name[0] != '.' || i < 2 {
		return false
	}
	digits := name[i+len(tempInfix):]
	if digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
