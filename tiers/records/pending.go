package records

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// PendingFile, inside the records root, lists the record files a write
// is changing until their index lines are in line with them. A write
// killed in between leaves it behind, and the next command that takes the
// lock (or checks the index) brings those lines in line before anything
// else, so a record is never left out of the index, nor a stale line in.
const PendingFile = ".index-pending"

// markPending records that the files at abs are about to change.
func markPending(root string, abs []string) error {
	if err := atomicfile.WriteFile(filepath.Join(root, PendingFile), []byte(strings.Join(abs, "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("mark index update: %w", err)
	}
	return nil
}

// clearPending says the index is in line with every file marked.
func clearPending(root string) error {
	err := os.Remove(filepath.Join(root, PendingFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear index update mark: %w", err)
	}
	return nil
}

// repairPending, under the lock, finishes the index update of a write
// that was killed: each marked file gets its line from what it holds now
// (active: the line; retired, archived, gone or unreadable: none).
func repairPending(root string, warn func(string)) error {
	data, err := regfile.ReadFile(filepath.Join(root, PendingFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read index update mark: %w", err)
	}
	var drop []string
	var add []Entry
	if strings.TrimSpace(string(data)) == rebuildMark {
		if warn != nil {
			warn("[WARN] an interrupted batch of writes left index.md behind its records; rebuilt it")
		}
		if _, err := RebuildIndex(root, warn); err != nil {
			return err
		}
		return clearPending(root)
	}
	for _, abs := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if abs == "" || !within(root, abs) {
			continue
		}
		drop = append(drop, IndexPath(root, abs))
		atomicfile.RemoveTempsOf(abs)
		r, err := ReadRecord(abs)
		if err != nil {
			continue
		}
		r.Category = CategoryOfFolder(filepath.Base(filepath.Dir(abs)))
		if r.Category != "" && r.Status() == StatusActive {
			add = append(add, EntryOf(root, abs, r))
		}
	}
	if warn != nil {
		warn("[WARN] an interrupted write left index.md behind its records; brought " + strings.Join(drop, ", ") + " in line")
	}
	atomicfile.RemoveTempsOf(filepath.Join(root, IndexFile))
	if err := updateIndex(root, drop, add, warn); err != nil {
		return err
	}
	return clearPending(root)
}

// AcquireWriteLock takes root's lock and first repairs what an
// interrupted write left: every writer goes through it (one that then
// writes through a Batch too).
func AcquireWriteLock(root string, warn func(string)) (*Lock, error) {
	lock, err := AcquireLock(root)
	if err != nil {
		return nil, err
	}
	if err := repairPending(root, warn); err != nil {
		lock.Release()
		return nil, err
	}
	return lock, nil
}

// repairIfPending lets a reader of the index (validate, health) repair an
// interrupted write first; without the mark it costs one stat.
func repairIfPending(root string, warn func(string)) error {
	if _, err := os.Stat(filepath.Join(root, PendingFile)); err != nil {
		return nil
	}
	lock, err := AcquireWriteLock(root, warn)
	if err != nil {
		return err
	}
	return lock.Release()
}

// sweepFolders clears the temp files killed writes left in root and in
// the folders of cats (see atomicfile.Sweep).
func sweepFolders(root string, cats ...string) {
	dirs := []string{root}
	for _, c := range cats {
		dirs = append(dirs, filepath.Join(root, Folder(c)))
	}
	atomicfile.Sweep(dirs...)
}

// crashAt is where the crash-safety tests kill a write (see crashpoint).
func crashAt(point string) { crashpoint.At("records-" + point) }
