package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zylos/zylos-memory/internal/flock"
	"github.com/zylos/zylos-memory/internal/realpath"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// The identity of every journal commit, as zylos v0.7.1's daily commit.
const (
	authorName  = "Zylos"
	authorEmail = "zylos@local"
)

// Files under memory/.state/ that belong to the journal: they exist
// only while the journal is off or failing, besides the lock.
const (
	offFile     = "journal-off"     // present: the journal is off for this home
	lockFile    = "journal.lock"    // flock serialising this home's committers
	problemFile = "journal-problem" // the last problem reported, said once
)

// Files the journal keeps inside memory/.git, beside git's own: its
// bookkeeping lives and goes with the repository.
const (
	stampFile = "zylos-journal-stamp" // the memory tree as last committed
)

// excluded are the paths under memory/ the journal never keeps, in
// gitignore's syntax: the service's state, the records layer's lock,
// staging and pending files, the temps of atomic writes, and editors'
// leftovers (backups, swap and lock files). Nothing else is left out,
// whatever a .gitignore in memory/ says.
var excluded = []string{"/.state/", ".git/", ".index.lock", ".index-pending", ".staging/", ".*.tmp-*", "*.lock",
	"*~", ".*.sw[a-p]", ".#*", "#*#"}

// excludedPathspecs are the excluded paths as pathspecs of `git add`.
var excludedPathspecs = sync.OnceValue(func() []string {
	var out []string
	for _, p := range excluded {
		switch {
		case strings.HasPrefix(p, "/"):
			out = append(out, ":(exclude,literal)"+strings.Trim(p, "/"))
		case strings.HasSuffix(p, "/"):
			out = append(out, ":(exclude,glob)**/"+p+"**")
		default:
			out = append(out, ":(exclude,glob)**/"+p)
		}
	}
	return out
})

// excludedPath reports whether the path rel (relative to memory/) is one
// the journal never keeps, or lies in such a directory.
func excludedPath(rel string) bool {
	parts := strings.Split(rel, "/")
	for i, name := range parts {
		if isExcluded(strings.Join(parts[:i+1], "/"), name, i < len(parts)-1) {
			return true
		}
	}
	return false
}

// isExcluded reports whether the file or directory name, at rel under
// memory/, is one the journal never keeps.
func isExcluded(rel, name string, dir bool) bool {
	for _, p := range excluded {
		switch {
		case strings.HasPrefix(p, "/"):
			if dir && rel == strings.Trim(p, "/") {
				return true
			}
		case strings.HasSuffix(p, "/"):
			if dir && name == strings.TrimSuffix(p, "/") {
				return true
			}
		case !dir:
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		}
	}
	return false
}

// ErrOff is returned by the entry points of a home whose journal is off.
var ErrOff = errors.New("the journal is off for this home (init --journal=true turns it on)")

// ErrBusy is a repository another program is working in (its lock, a
// merge or rebase under way): the change waits for the next chance.
var ErrBusy = errors.New("the memory repository is busy")

// Journal is the journal of one home. Its zero value is not usable; Open
// one. Opening does no I/O.
type Journal struct {
	layout tiers.Layout
	dir    string // memory/
	gitDir string // memory/.git
	state  string // memory/.state
	// LockWait bounds the wait for another committer of this home.
	LockWait time.Duration
	// Now is the clock of commit times; nil is the wall clock.
	Now func() time.Time
	// Environ is the environment git runs in (KEY=value); nil is this
	// process's. The memory service committing for a hook gives the
	// hook's, so that git reads the same configuration as in the hook's
	// own process.
	Environ []string

	holding bool // the journal lock is held: the git lock files are ours
}

// Open returns the journal of the home l.
func Open(l tiers.Layout) *Journal {
	dir := l.MemoryDir()
	return &Journal{layout: l, dir: dir, gitDir: filepath.Join(dir, ".git"), state: l.StateDir(), LockWait: 10 * time.Second}
}

// Dir is the memory directory the journal keeps.
func (j *Journal) Dir() string { return j.dir }

// Off reports whether the journal is turned off for this home.
func (j *Journal) Off() bool {
	_, err := os.Lstat(filepath.Join(j.state, offFile))
	return err == nil
}

// SetOff turns the journal off (true) or on (false).
func (j *Journal) SetOff(off bool) error {
	path := filepath.Join(j.state, offFile)
	if !off {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(j.state, 0o755); err != nil {
		return err
	}
	return writeState(path, []byte("the memory journal is off; `zylos-memory init --journal=true` turns it on\n"))
}

// now is the journal's clock, the wall clock when none was given.
func (j *Journal) now() time.Time {
	if j.Now != nil {
		return j.Now()
	}
	//processglobal: the wall clock of a journal given no clock
	return time.Now()
}

// checkRepo says what keeps memory/.git from being the journal's
// repository: a file (a link to a repository elsewhere), a symlink out of
// the home, anything but a directory. A missing one is not a problem.
func (j *Journal) checkRepo() (exists bool, err error) {
	info, err := os.Lstat(j.gitDir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if info.Mode()&os.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(j.gitDir)
		if err != nil {
			return false, fmt.Errorf("memory/.git is a broken symlink")
		}
		if !realpath.Confined(j.layout.ZylosDir, target) {
			return false, fmt.Errorf("memory/.git is a symlink out of the home (to %s); the journal leaves it alone", target)
		}
		info, err = os.Stat(target)
		if err != nil {
			return false, err
		}
	}
	if !info.IsDir() {
		return false, fmt.Errorf("memory/.git is not a directory (a link to a repository elsewhere?); the journal leaves it alone")
	}
	// What git itself checks first: a HEAD that names a ref or a commit.
	if data, err := regfile.ReadFile(filepath.Join(j.gitDir, "HEAD")); err == nil {
		head := strings.TrimSpace(string(data))
		if ref, ok := strings.CutPrefix(head, "ref: "); !(ok && strings.HasPrefix(ref, "refs/")) && !isRev(head) {
			return false, fmt.Errorf("memory/.git is not a repository git can read (its HEAD is %q)", truncate(head, 40))
		}
	}
	return true, nil
}

// isRev reports whether s is a full commit id.
func isRev(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// ensure makes memory/.git the journal's repository: an existing one is
// adopted with its history, a missing one is created. Either way the
// files the journal never keeps are excluded.
func (j *Journal) ensure(ctx context.Context) error {
	exists, err := j.checkRepo()
	if err != nil {
		return err
	}
	if !exists {
		// No template: no sample hooks, and the exclude list is ours.
		if _, err := j.git(ctx, nil, "init", "-q", "--template="); err != nil {
			return err
		}
	}
	j.keepBranch()
	added, err := j.exclude()
	if err != nil || !added {
		return err
	}
	// A repository adopted, or kept by an older journal, may track what
	// the journal excludes (.state/ above all): its next commit stops.
	untrack := []string{"rm", "-r", "--cached", "-q", "--ignore-unmatch", "--"}
	for _, p := range excludedPathspecs() {
		untrack = append(untrack, strings.Replace(p, "exclude,", "", 1))
	}
	_, err = j.git(ctx, nil, untrack...)
	return err
}

// exclude lists the excluded paths in .git/info/exclude, so that stock git
// (status, add -A, zylos's daily commit) leaves them out too; added says
// it had to add some.
func (j *Journal) exclude() (added bool, err error) {
	path := filepath.Join(j.gitDir, "info", "exclude")
	data, err := regfile.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(line)] = true
	}
	var add []string
	for _, p := range excluded {
		if !have[p] {
			add = append(add, p)
		}
	}
	if len(add) == 0 {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	return true, writeState(path, append(data, strings.Join(add, "\n")+"\n"...))
}

// lock takes the home's journal lock within wait, then makes sure no
// git lock file left by a killed committer stands in the way.
func (j *Journal) lock(wait time.Duration) (release func(), err error) {
	if j.holding {
		return func() {}, nil // taken already, by a caller deciding what to commit
	}
	if err := os.MkdirAll(j.state, 0o755); err != nil {
		return nil, err
	}
	rel, err := flock.AcquireWithin(filepath.Join(j.state, lockFile), "another journal commit", wait)
	if err != nil {
		return nil, err
	}
	if err := j.recoverLocks(); err != nil {
		rel()
		return nil, err
	}
	j.holding = true
	return func() { j.holding = false; rel() }, nil
}

// lockSettle is how long a git lock file that no process holds open is
// given to go before it is taken as left by a dead one: git closes a lock
// file an instant before it renames it into place.
const lockSettle = 20 * time.Millisecond

// recoverLocks removes the git lock files whose owner is dead, whoever
// made it: a git killed mid-add (the OOM killer, a hook's deadline)
// leaves its index.lock behind, and no process holds it open any more. A
// lock a live process holds stays; the in-process commit works around it
// (see engine), and git's own commands wait for it.
func (j *Journal) recoverLocks() error {
	var loose []string
	if locks := j.gitLocks(); len(locks) > 0 {
		held := heldOpen(locks)
		for _, l := range locks {
			if !held[l] {
				loose = append(loose, l)
			}
		}
	}
	if len(loose) == 0 {
		return nil
	}
	time.Sleep(lockSettle)
	if j.gitAtWork() {
		// A git of the user's may hold a lock it has closed (git commit
		// while its editor runs): it is not dead.
		return nil
	}
	held := heldOpen(loose)
	for _, l := range loose {
		if held[l] {
			continue
		}
		if err := os.Remove(l); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// heldOpen says which of paths some process has open, by its open files
// in /proc. A process whose files cannot be read (another user's) is
// taken as holding none: the memory's repository is its owner's.
func heldOpen(paths []string) map[string]bool {
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
		if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			want[filepath.Join(real, filepath.Base(p))] = true
		}
	}
	held := map[string]bool{}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		for _, p := range paths {
			held[p] = true // cannot tell: leave them be
		}
		return held
	}
	for _, proc := range procs {
		if proc.Name()[0] < '0' || proc.Name()[0] > '9' {
			continue
		}
		fdDir := filepath.Join("/proc", proc.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil || !want[target] {
				continue
			}
			for _, p := range paths {
				if target == p || strings.HasSuffix(target, "/"+filepath.Base(p)) {
					held[p] = true
				}
			}
		}
	}
	return held
}

// gitAtWork reports whether a git process (of this user: another's
// cannot be seen) is running in memory/, by its working directory.
func (j *Journal) gitAtWork() bool {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return true // cannot tell: leave the locks be
	}
	self := strconv.Itoa(os.Getpid())
	dir, _ := filepath.EvalSymlinks(j.dir)
	for _, proc := range procs {
		name := proc.Name()
		if name[0] < '0' || name[0] > '9' || name == self {
			continue
		}
		comm, err := regfile.ReadFile(filepath.Join("/proc", name, "comm"))
		if err != nil || !strings.HasPrefix(strings.TrimSpace(string(comm)), "git") {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", name, "cwd"))
		if err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) {
			return true
		}
	}
	return false
}

// busyLocks says whether a git lock file is in the way of git's own
// commit: ErrBusy naming it.
func (j *Journal) busyLocks() error {
	if locks := j.gitLocks(); len(locks) > 0 {
		return fmt.Errorf("%w (%s held by another program)", ErrBusy, filepath.Base(locks[0]))
	}
	return nil
}

// gitLocks are the lock files git takes for a commit.
func (j *Journal) gitLocks() []string {
	var out []string
	for _, name := range []string{"index.lock", "HEAD.lock", "packed-refs.lock", "config.lock"} {
		p := filepath.Join(j.gitDir, name)
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	refs, _ := filepath.Glob(filepath.Join(j.gitDir, "refs", "heads", "*.lock"))
	return append(out, refs...)
}

// busy says why git cannot take a commit now: a merge, rebase,
// cherry-pick or revert of a user's hand work is under way.
func (j *Journal) busy() error {
	for _, name := range []string{"MERGE_HEAD", "rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "REVERT_HEAD"} {
		if _, err := os.Stat(filepath.Join(j.gitDir, name)); err == nil {
			return fmt.Errorf("%w (%s under way)", ErrBusy, name)
		}
	}
	return nil
}

// appendFile appends data to one of the journal's files, creating it
// with perm: one write with O_APPEND, so writers racing each other each
// keep their lines.
func appendFile(path string, data []byte, perm os.FileMode) error {
	f, err := regfile.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// writeState replaces one of the journal's own files (its stamp, the
// repository's exclude list) by rename. It bypasses internal/atomicfile
// on purpose: those files are caches and settings a torn write of which
// is only a lost stamp, and the crash tests of the memory writes count
// atomicfile's renames to pick where to kill a command.
func writeState(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}
