package tiers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// ErrChangedSinceRead says a file was edited, other than by appending, or
// replaced after it was read for a rewrite: rewriting it would lose that
// edit, so nothing was written.
var ErrChangedSinceRead = errors.New("changed since it was read")

// rewriteRounds bounds the rounds of a Rewrite that finds, at the swap,
// that the file changed since it was read: each round starts over from
// the file as it then is.
const rewriteRounds = 8

// leaseWait bounds the wait for a writer that holds the file open to
// close it (see Rewrite).
const leaseWait = 2 * time.Second

// exchange is atomicfile.Exchange; a test sets it to one that fails with
// ErrNoExchange to run the fallback on any filesystem.
var exchange = atomicfile.Exchange

// Rewrite replaces the file at path, which read as src, with next,
// without losing an edit anyone else makes meanwhile, up to the instant
// the new file takes its place. What was appended since the read is
// carried to the end of next; any other change is refused with
// ErrChangedSinceRead, the file left as its editor made it.
//
// The file is read under a read lease (F_SETLEASE): it is granted once no
// process has the file open for writing (Rewrite waits up to leaseWait
// for one to close it), and any open of it for writing or truncate from
// then on breaks it, the opener waiting until it is dropped. Just before
// the new file is swapped in, the file must still be the one read (else
// an editor replaced it by a rename) and hold what was read, perhaps with
// lines appended (read again through the descriptor held since); else
// the round starts over. The swap is renameat2(RENAME_EXCHANGE): what
// path named at that instant is not gone but named by the temp file, and
// is checked (see settle): the file read, unchanged, the lease intact;
// else the openers the lease held back write, lines appended to the old
// file are carried to the new one, and any other change is swapped back
// and the round starts over. The new file is visible before a failed
// check only between the swap and the check, microseconds unless an
// opener held back by the lease is waited for.
//
// Without a lease (another filesystem, another owner, a writer that keeps
// the file open) the old file is kept under memory/.state/backups/
// instead of removed, where a late write through an old descriptor still
// lands. On a filesystem without RENAME_EXCHANGE the old file is always
// kept in backups and a plain rename replaces it (see replace).
//
// The old file is also kept in backups, by a hard link, when backup is
// set. Rewrite returns the backup's path, or "" when none was taken.
func (l Layout) Rewrite(path string, src, next []byte, backup bool, now time.Time) (string, error) {
	r := &rewrite{l: l, path: path, src: src, next: next, backup: backup, now: now}
	for range rewriteRounds {
		done, err := r.round()
		if done || err != nil {
			return r.kept, err
		}
	}
	return r.kept, ErrChangedSinceRead
}

// rewrite is one Rewrite's state across its rounds.
type rewrite struct {
	l         Layout
	path      string
	src, next []byte
	backup    bool
	now       time.Time
	kept      string // the backup of the old file, "" while none
	keptFile  os.FileInfo
}

// round reads the file, writes the change and swaps it in; it answers
// false, with no error, when the file changed on the way and the round
// was undone.
func (r *rewrite) round() (bool, error) {
	f, err := regfile.Open(r.path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return false, err
	}
	o := &oldFile{f: f, info: opened, leased: holdLease(f, leaseWait)}
	// Dropped once the round is over, swapped back if need be: an
	// opener waiting on it then writes into the file at path.
	defer o.drop()
	if o.cur, err = io.ReadAll(f); err != nil {
		return false, err
	}
	if !bytes.HasPrefix(o.cur, r.src) {
		return false, ErrChangedSinceRead
	}
	if r.backup && r.kept == "" {
		if err := r.keepOpen(f, opened, o.cur); errors.Is(err, errChangedUnder) {
			return false, nil
		} else if err != nil {
			return false, err
		}
	}
	n := &newFile{data: append(append([]byte(nil), r.next...), o.cur[len(r.src):]...)}
	if n.name, err = atomicfile.Stage(r.path, n.data, 0o644); err != nil {
		return false, err
	}
	if n.info, err = os.Lstat(n.name); err != nil {
		os.Remove(n.name)
		return false, err
	}
	crashpoint.Pause("rewrite-before-swap")
	// Lines appended since the read do not stop the swap: they are
	// carried over after it (see settle).
	if named, err := os.Lstat(r.path); err != nil || !os.SameFile(named, opened) || !o.grownOnly() {
		os.Remove(n.name)
		return false, nil
	}
	crashpoint.At("atomicfile-before-rename")
	switch err := exchange(n.name, r.path); {
	case errors.Is(err, atomicfile.ErrNoExchange):
		return r.replace(o, n.name)
	case err != nil:
		os.Remove(n.name)
		return false, err
	}
	crashpoint.Pause("rewrite-after-swap")
	// n.name names what path named at the swap: the file read, unless
	// an editor replaced it since the check.
	if displaced, err := os.Lstat(n.name); err != nil || !os.SameFile(displaced, opened) {
		return false, r.swapBack(n)
	}
	return r.settle(o, n)
}

// oldFile is the file a round read, open as f, read as cur.
type oldFile struct {
	f      *os.File
	info   os.FileInfo
	cur    []byte
	leased bool // f holds a read lease (see holdLease)
}

// grownOnly reports whether the old file still holds cur, perhaps with
// lines appended.
func (o *oldFile) grownOnly() bool {
	again, err := readFromStart(o.f)
	return err == nil && bytes.HasPrefix(again, o.cur)
}

// unchanged reports whether the old file still holds cur and, when
// leased, no one has opened it for writing since the lease was taken.
func (o *oldFile) unchanged() bool {
	again, err := readFromStart(o.f)
	return err == nil && bytes.Equal(again, o.cur) && (!o.leased || leaseIntact(o.f))
}

func (o *oldFile) drop() {
	if o.leased {
		dropLease(o.f)
		o.leased = false
	}
}

// newFile is a round's new file: name, once swapped, names the old one.
type newFile struct {
	name string
	info os.FileInfo
	data []byte
}

// settle finishes a swap that displaced the file read. Unchanged, and
// no one waiting to write it: the old file goes. Else the openers the
// lease held back are let go and waited for (leaseWait), and the old
// file read once more: lines appended to it are carried to the end of
// the file at path; any other change is swapped back and the round
// starts over.
func (r *rewrite) settle(o *oldFile, n *newFile) (bool, error) {
	if !o.unchanged() {
		o.drop()
		o.leased = holdLease(o.f, leaseWait)
		late, err := readFromStart(o.f)
		if err != nil || !bytes.HasPrefix(late, o.cur) {
			return false, r.swapBack(n)
		}
		if len(late) > len(o.cur) {
			if err := atomicfile.Append(r.path, late[len(o.cur):]); err != nil {
				kerr := r.keepName(n.name)
				return true, fmt.Errorf("keep lines appended during the rewrite: %w (they are in %s, %v)", err, r.l.rel(r.kept), kerr)
			}
		}
	}
	var err error
	switch {
	case o.leased || r.keptFile != nil && os.SameFile(r.keptFile, o.info):
		// No writer has the old file open, and none can open it
		// for writing before the lease is dropped without the check
		// above seeing it; or it is in backups already.
		err = os.Remove(n.name)
	default:
		err = r.keepName(n.name)
	}
	if err != nil {
		return true, fmt.Errorf("rewrite %s: %w", r.l.rel(r.path), err)
	}
	return true, atomicfile.SyncDir(filepath.Dir(r.path))
}

// swapBack undoes a swap whose check failed: path names again what it
// named at the swap, and the new file is removed, the lines appended to
// it since the swap carried to the file at path. Should the new file
// have been changed otherwise, or replaced, what came back is kept in
// backups and the error says where: two versions cannot both stay at
// path.
func (r *rewrite) swapBack(n *newFile) error {
	if err := exchange(n.name, r.path); err != nil {
		// path still names the new file: keep the displaced one.
		if kerr := r.keepName(n.name); kerr != nil {
			return fmt.Errorf("rewrite %s: changed during the rewrite and could not be put back (%v); its changed version is at %s", r.l.rel(r.path), err, n.name)
		}
		return fmt.Errorf("rewrite %s: changed during the rewrite and could not be put back (%v); its changed version is kept in %s", r.l.rel(r.path), err, r.l.rel(r.kept))
	}
	if carried, err := r.carryAppended(n); err != nil || !carried {
		if kerr := r.keepName(n.name); kerr != nil {
			return fmt.Errorf("rewrite %s: changed twice during the rewrite; one version is at %s", r.l.rel(r.path), n.name)
		}
		return fmt.Errorf("rewrite %s: changed twice during the rewrite; one version is kept in %s", r.l.rel(r.path), r.l.rel(r.kept))
	}
	os.Remove(n.name)
	return atomicfile.SyncDir(filepath.Dir(r.path))
}

// carryAppended appends to path what was appended to the new file, back
// under n.name after a swap back, while it was at path; false when it is
// not the new file any more or was changed otherwise.
func (r *rewrite) carryAppended(n *newFile) (bool, error) {
	f, err := regfile.Open(n.name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !os.SameFile(info, n.info) {
		return false, err
	}
	if !holdLease(f, leaseWait) {
		return false, nil
	}
	defer dropLease(f)
	now, err := io.ReadAll(f)
	if err != nil || !bytes.HasPrefix(now, n.data) {
		return false, err
	}
	if len(now) > len(n.data) {
		if err := atomicfile.Append(r.path, now[len(n.data):]); err != nil {
			return false, err
		}
	}
	return true, nil
}

// replace puts tmp in place by a plain rename, where the filesystem
// cannot exchange; round checked the file just before. The old file is
// kept in backups first, so that a write into it through a descriptor
// opened before the rename lands there; lines appended to it after the
// read (by an opener the lease held back, once it is done) are carried
// to the new file; any other write to it is reported. An edit by name in
// the instant between the check and the rename is not seen.
func (r *rewrite) replace(o *oldFile, tmp string) (bool, error) {
	if r.keptFile == nil || !os.SameFile(r.keptFile, o.info) {
		if err := r.keepOpen(o.f, o.info, o.cur); err != nil {
			os.Remove(tmp)
			if errors.Is(err, errChangedUnder) {
				return false, nil
			}
			return false, err
		}
	}
	if err := os.Rename(tmp, r.path); err != nil {
		os.Remove(tmp)
		return false, fmt.Errorf("write %s: %w", r.path, err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(r.path)); err != nil {
		return true, err
	}
	if !o.unchanged() {
		// Let an opener waiting on the lease write, and wait for it.
		o.drop()
		o.leased = holdLease(o.f, leaseWait)
	}
	late, err := readFromStart(o.f)
	switch {
	case err != nil:
		return true, err
	case bytes.HasPrefix(late, o.cur) && len(late) > len(o.cur):
		if err := atomicfile.Append(r.path, late[len(o.cur):]); err != nil {
			return true, fmt.Errorf("keep lines appended during the rewrite: %w (they are in %s)", err, r.l.rel(r.kept))
		}
	case !bytes.Equal(late, o.cur):
		return true, fmt.Errorf("rewrite %s: written to in place during the rewrite; that version is kept in %s", r.l.rel(r.path), r.l.rel(r.kept))
	}
	return true, nil
}

// keepOpen backs up the old file, open as f, by a hard link.
func (r *rewrite) keepOpen(f *os.File, opened os.FileInfo, cur []byte) error {
	kept, err := r.l.linkBackUp(r.path, f, cur, r.now)
	if err != nil {
		return err
	}
	r.kept, r.keptFile = kept, opened
	return nil
}

// keepName moves the file named name (a displaced version of path) into
// backups.
func (r *rewrite) keepName(name string) error {
	info, err := os.Lstat(name)
	if err != nil {
		return err
	}
	kept, err := r.l.placeBackUp(r.path, r.now, func(target string) error {
		err := os.Link(name, target)
		if errors.Is(err, syscall.EXDEV) {
			data, rerr := regfile.ReadFile(name)
			if rerr != nil {
				return rerr
			}
			return atomicfile.CreateExclusive(target, data, 0o644)
		}
		if err != nil {
			return err
		}
		return atomicfile.SyncDir(filepath.Dir(target))
	})
	if err != nil {
		return err
	}
	r.kept, r.keptFile = kept, info
	return os.Remove(name)
}
