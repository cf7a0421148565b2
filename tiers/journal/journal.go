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
	"syscall"
	"time"

	"github.com/zylos/zylos-memory/internal/flock"
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
	ownerFile = "zylos-journal-owner" // pid of the committer running git now
	stampFile = "zylos-journal-stamp" // the memory tree as last committed
)

// excluded are the paths under memory/ the journal never keeps, in
// gitignore's syntax: the service's state, the records layer's lock,
// staging and pending files, the temps of atomic writes, and editors'
// leftovers (backups, swap and lock files). Nothing else is left out,
// whatever a .gitignore in memory/ says.
var excluded = []string{"/.state/", ".index.lock", ".index-pending", ".staging/", ".*.tmp-*", "*.lock",
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
		home, _ := filepath.EvalSymlinks(j.layout.ZylosDir)
		if rel, err := filepath.Rel(home, target); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
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
	return true, nil
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
		j.markOwner()
	}
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
	// Best effort: without a repository yet (or with one the journal
	// refuses) there is no git lock of ours to recover later.
	j.markOwner()
	j.holding = true
	return func() { j.holding = false; os.Remove(filepath.Join(j.gitDir, ownerFile)); rel() }, nil
}

// markOwner names this process as the one running git in the repository.
func (j *Journal) markOwner() {
	os.WriteFile(filepath.Join(j.gitDir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644)
}

// foreignLockAge is how old a git lock of another program must be before
// it is taken as left by a dead one.
const foreignLockAge = 10 * time.Minute

// recoverLocks removes the git lock files of a committer that died. Under
// the journal lock no committer of ours runs git, so the lock files are
// either a dead committer's (its owner file names a dead process) or
// another program's, which are only broken once far older than any git
// command on a memory directory takes.
func (j *Journal) recoverLocks() error {
	locks := j.gitLocks()
	if len(locks) == 0 {
		return nil
	}
	ours := false
	if data, err := regfile.ReadFile(filepath.Join(j.gitDir, ownerFile)); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && !alive(pid) {
			ours = true
		}
	}
	for _, l := range locks {
		info, err := os.Lstat(l)
		if err != nil {
			continue
		}
		if ours || time.Since(info.ModTime()) > foreignLockAge {
			if err := os.Remove(l); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			continue
		}
		return fmt.Errorf("%w (%s held by another program)", ErrBusy, filepath.Base(l))
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

func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
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
