package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/zylos/zylos-memory/internal/gitobj"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// The engine writes a commit in this process, with no git process: the
// blobs of the changed files, the trees along their paths, the commit,
// a compare-and-swap update of the branch under git's own lock file, and
// the index entries of the committed files, so that stock git status
// stays clean. go-git reads and writes the objects (loose or packed, as
// git keeps them); the branch and the index are written here, by a lock
// file renamed into place as git does, because go-git rewrites a ref in
// place, which a kill -9 at the wrong moment leaves empty. A git process
// costs a hook several milliseconds each (three for a commit); the
// engine's commit is a few file writes (docs/journal.md has the figures).

// engine is the journal's repository opened in this process.
type engine struct {
	gitDir string
	st     *filesystem.Storage
}

func openEngine(gitDir string) *engine {
	return &engine{gitDir: gitDir, st: filesystem.NewStorageWithOptions(osfs.New(gitDir), cache.NewObjectLRUDefault(), filesystem.Options{})}
}

// worktreeFile is one changed path as the work tree has it now.
type worktreeFile struct {
	path string // relative to memory/, slash-separated
	gone bool
	data []byte
	mode filemode.FileMode
	stat *syscall.Stat_t // as read before data, for the index
}

// readWorktree reads the files at paths under dir; a path that is not a
// regular file or a symlink now counts as gone.
func readWorktree(dir string, paths []string) ([]worktreeFile, error) {
	var out []worktreeFile
	for _, p := range paths {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		f := worktreeFile{path: p}
		info, err := os.Lstat(abs)
		switch {
		case errors.Is(err, os.ErrNotExist), errors.Is(err, syscall.ENOTDIR), err == nil && !info.Mode().IsRegular() && info.Mode()&os.ModeSymlink == 0:
			f.gone = true
		case err != nil:
			return nil, err
		case info.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(abs)
			if err != nil {
				return nil, err
			}
			f.data, f.mode = []byte(target), filemode.Symlink
		default:
			data, err := regfile.ReadFile(abs)
			if err != nil {
				return nil, err
			}
			f.data, f.mode = data, filemode.Regular
			if info.Mode()&0o111 != 0 {
				f.mode = filemode.Executable
			}
		}
		if err == nil {
			f.stat, _ = info.Sys().(*syscall.Stat_t)
		}
		out = append(out, f)
	}
	return out, nil
}

// staged is a tree written with the changes of a commit to be.
type staged struct {
	tree   plumbing.Hash
	files  []FileChange
	losses []Loss
}

// stage writes the tree of parent (zero for the first commit) with files
// changed, and answers nil when no file differs from parent.
func (e *engine) stage(parent plumbing.Hash, files []worktreeFile) (*staged, error) {
	var root plumbing.Hash
	if !parent.IsZero() {
		c, err := object.GetCommit(e.st, parent)
		if err != nil {
			return nil, fmt.Errorf("read the journal's last commit: %w", err)
		}
		root = c.TreeHash
	}
	changes := map[string]*worktreeFile{}
	for i := range files {
		changes[files[i].path] = &files[i]
	}
	res := &staged{}
	tree, err := e.writeTree(root, "", changes, res, parent.IsZero())
	if err != nil || len(res.files) == 0 {
		return nil, err
	}
	res.tree = tree
	sort.Slice(res.files, func(a, b int) bool { return res.files[a].Path < res.files[b].Path })
	return res, nil
}

// writeCommit writes the commit of tree on parent (zero for the first).
func (e *engine) writeCommit(tree, parent plumbing.Hash, msg string, when time.Time) (plumbing.Hash, error) {
	return gitobj.Commit(e.st, tree, parent, object.Signature{Name: authorName, Email: authorEmail, When: when}, msg)
}

// writeTree writes the tree at prefix (hash old, zero when new) with the
// changes below it, and answers its hash (zero when it is left empty).
// What changed is added to res.
func (e *engine) writeTree(old plumbing.Hash, prefix string, changes map[string]*worktreeFile, res *staged, first bool) (plumbing.Hash, error) {
	entries := map[string]object.TreeEntry{}
	if !old.IsZero() {
		t, err := object.GetTree(e.st, old)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read the tree of %q: %w", prefix, err)
		}
		for _, en := range t.Entries {
			entries[en.Name] = en
		}
	}
	subdirs := map[string]map[string]*worktreeFile{}
	for rel, f := range changes {
		name, rest, deeper := strings.Cut(rel, "/")
		if deeper {
			if subdirs[name] == nil {
				subdirs[name] = map[string]*worktreeFile{}
			}
			subdirs[name][rest] = f
			continue
		}
		prev, had := entries[name]
		if had && prev.Mode == filemode.Dir {
			had = false // a directory replaced by a file
		}
		if f.gone {
			if had {
				delete(entries, name)
				res.note('D', f.path, e.blob(prev.Hash), nil, first)
			}
			continue
		}
		h, err := e.writeBlob(f.data)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if had && prev.Hash == h && prev.Mode == f.mode {
			continue
		}
		entries[name] = object.TreeEntry{Name: name, Mode: f.mode, Hash: h}
		if had {
			res.note('M', f.path, e.blob(prev.Hash), f.data, first)
		} else {
			res.note('A', f.path, nil, f.data, first)
		}
	}
	for name, below := range subdirs {
		var sub plumbing.Hash
		if prev, ok := entries[name]; ok && prev.Mode == filemode.Dir {
			sub = prev.Hash
		}
		h, err := e.writeTree(sub, path.Join(prefix, name), below, res, first)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h.IsZero() {
			delete(entries, name)
		} else {
			entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
		}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	t := make([]object.TreeEntry, 0, len(entries))
	for _, en := range entries {
		t = append(t, en)
	}
	return gitobj.Tree(e.st, t)
}

// note records a changed file, and for a watched one the lines it lost.
func (res *staged) note(status byte, p string, old, cur []byte, first bool) {
	res.files = append(res.files, FileChange{Status: status, Path: p})
	if !first && watched(p) && old != nil {
		if lost := lostLines(old, cur); len(lost) > 0 {
			res.losses = append(res.losses, Loss{Path: p, Lines: lost})
		}
	}
}

// lostLines are the lines of old that are not in cur, counted as a diff
// counts them: only when cur has fewer lines of its own than old lost,
// and a line moved elsewhere in the file is not lost.
func lostLines(old, cur []byte) []string {
	oldLines, curLines := splitLines(old), splitLines(cur)
	removed, added := without(oldLines, curLines), without(curLines, oldLines)
	if len(removed) <= len(added) {
		return nil
	}
	return removed
}

func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// committed is paths as the commit rev has them, for the index: gone
// when rev has no such file; with the work tree file's stat data only
// when the file still holds the committed content.
func (e *engine) committed(rev plumbing.Hash, dir string, paths []string) ([]worktreeFile, error) {
	c, err := object.GetCommit(e.st, rev)
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	cur, err := readWorktree(dir, paths)
	if err != nil {
		return nil, err
	}
	out := make([]worktreeFile, len(paths))
	for i, p := range paths {
		out[i] = worktreeFile{path: p, gone: true}
		en, err := tree.FindEntry(p)
		if err != nil || en.Mode == filemode.Dir {
			continue
		}
		data := e.blob(en.Hash)
		if data == nil {
			return nil, fmt.Errorf("read memory/%s at %s", p, short(rev.String()))
		}
		out[i] = worktreeFile{path: p, data: data, mode: en.Mode}
		if !cur[i].gone && cur[i].mode == en.Mode && bytes.Equal(cur[i].data, data) {
			out[i].stat = cur[i].stat
		}
	}
	return out, nil
}

// differs lists the paths whose work tree content (or absence) is not
// what the commit rev has.
func (e *engine) differs(rev plumbing.Hash, dir string, paths []string) ([]string, error) {
	kept, err := e.committed(rev, dir, paths)
	if err != nil {
		return nil, err
	}
	cur, err := readWorktree(dir, paths)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range paths {
		if kept[i].gone != cur[i].gone || !kept[i].gone && (kept[i].mode != cur[i].mode || !bytes.Equal(kept[i].data, cur[i].data)) {
			out = append(out, paths[i])
		}
	}
	return out, nil
}

// blob is the content of a blob, nil when it cannot be read.
func (e *engine) blob(h plumbing.Hash) []byte {
	obj, err := e.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil
	}
	r, err := obj.Reader()
	if err != nil {
		return nil
	}
	defer r.Close()
	data, _ := io.ReadAll(r)
	return data
}

// writeBlob writes data as a loose blob (see gitobj.Blob).
func (e *engine) writeBlob(data []byte) (plumbing.Hash, error) { return gitobj.Blob(e.st, data) }

// errRefMoved is a branch that another writer moved between its read and
// its update: the commit is not made.
var errRefMoved = errors.New("the journal's branch moved while committing")

// updateRef moves ref (refs/heads/NAME) from old to rev, as git does:
// under ref.lock (see replaceLocked). A lock held by another is ErrBusy.
func (e *engine) updateRef(ref string, old, rev plumbing.Hash, reflog string, when time.Time) error {
	p := filepath.Join(e.gitDir, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	err := replaceLocked(p, func() ([]byte, error) {
		if cur := readRef(e.gitDir, ref); cur != old.String() && !(old.IsZero() && cur == "") {
			return nil, errRefMoved
		}
		return []byte(rev.String() + "\n"), nil
	})
	if errors.Is(err, errLockHeld) {
		return fmt.Errorf("%w (%s.lock held by another program)", ErrBusy, filepath.Base(p))
	}
	if err != nil {
		return err
	}
	line := fmt.Sprintf("%s %s %s <%s> %d +0000\t%s\n", old, rev, authorName, authorEmail, when.Unix(), reflog)
	appendReflog(filepath.Join(e.gitDir, "logs", filepath.FromSlash(ref)), line)
	return nil
}

// errLockHeld is a git lock file another process has taken.
var errLockHeld = errors.New("lock file held")

// replaceLocked replaces the file p as git does: it takes p.lock,
// created exclusively (errLockHeld when it exists), writes there what
// content answers (read under the lock), syncs it and renames it over p.
// The lock is held open until it is renamed, so that a lock nobody holds
// open is a dead writer's (see recoverLocks).
func replaceLocked(p string, content func() ([]byte, error)) (err error) {
	lock := p + ".lock"
	f, err := regfile.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return errLockHeld
	}
	if err != nil {
		return err
	}
	defer func() {
		f.Close()
		if err != nil {
			os.Remove(lock)
		}
	}()
	data, err := content()
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return os.Rename(lock, p)
}

// appendReflog adds a line to a reflog, as git does for its commits: what
// git reflog shows, never what the journal relies on.
func appendReflog(p, line string) {
	if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
		appendFile(p, []byte(line), 0o644)
	}
}

// readRef is the commit a ref names, loose or packed; "" when none.
func readRef(gitDir, ref string) string {
	if data, err := regfile.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(data))
	}
	packed, _ := regfile.ReadFile(filepath.Join(gitDir, "packed-refs"))
	for _, line := range strings.Split(string(packed), "\n") {
		if rev, r, ok := strings.Cut(line, " "); ok && r == ref {
			return rev
		}
	}
	return ""
}

// errIndexBusy is an index another program holds (its index.lock): the
// commit stands, and the index is brought in step later.
var errIndexBusy = errors.New("the index is held by another program")

// syncIndex sets the index entries of files to what was committed, with
// their stat data, so that stock git status finds them clean.
func (e *engine) syncIndex(files []worktreeFile) error {
	err := replaceLocked(filepath.Join(e.gitDir, "index"), func() ([]byte, error) { return e.updatedIndex(files) })
	if errors.Is(err, errLockHeld) {
		return errIndexBusy
	}
	return err
}

// updatedIndex is the index as it is, with the entries of files set.
func (e *engine) updatedIndex(files []worktreeFile) ([]byte, error) {
	idx := &index.Index{Version: 2}
	if data, err := regfile.ReadFile(filepath.Join(e.gitDir, "index")); err == nil {
		if err := index.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
			return nil, fmt.Errorf("read the journal's index: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	byName := map[string]*index.Entry{}
	for _, en := range idx.Entries {
		byName[en.Name] = en
	}
	for _, wf := range files {
		if wf.gone {
			delete(byName, wf.path)
			continue
		}
		en := &index.Entry{Name: wf.path, Hash: plumbing.ComputeHash(plumbing.BlobObject, wf.data), Mode: wf.mode, Size: uint32(len(wf.data))}
		if st := wf.stat; st != nil {
			en.CreatedAt = time.Unix(st.Ctim.Unix())
			en.ModifiedAt = time.Unix(st.Mtim.Unix())
			en.Dev, en.Inode, en.UID, en.GID = uint32(st.Dev), uint32(st.Ino), st.Uid, st.Gid
		}
		byName[wf.path] = en
	}
	idx.Entries = idx.Entries[:0]
	for _, en := range byName {
		idx.Entries = append(idx.Entries, en)
	}
	sort.Slice(idx.Entries, func(a, b int) bool { return idx.Entries[a].Name < idx.Entries[b].Name })
	idx.Cache, idx.ResolveUndo, idx.EndOfIndexEntry = nil, nil, nil
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(idx); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
