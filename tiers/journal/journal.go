package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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

// excluded are the paths under memory/ the journal never keeps: the
// service's state, and the records layer's lock, staging and pending
// files and the temps of atomic writes.
var excluded = []string{"/.state/", ".index.lock", ".index-pending", ".staging/", ".*.tmp-*", "*.lock"}

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

// gitPath is the git binary, looked up once per process.
var gitPath = sync.OnceValues(func() (string, error) { return exec.LookPath("git") })

// git runs git on the journal's repository and work tree only: the
// variables that would point it elsewhere are dropped and the commit
// identity is the journal's.
func (j *Journal) git(ctx context.Context, stdin []byte, args ...string) (string, error) {
	return j.gitWith(ctx, nil, stdin, args...)
}

// gitWith is git with extra environment variables.
func (j *Journal) gitWith(ctx context.Context, extra []string, stdin []byte, args ...string) (string, error) {
	out, _, err := j.run(ctx, extra, stdin, 0, args...)
	return out, err
}

// gitCapped is git whose output is read up to limit bytes only (cut
// tells); git is stopped there: a diff of the whole memory can be large.
// The output is made valid UTF-8 for a page to show.
func (j *Journal) gitCapped(ctx context.Context, limit int, args ...string) (out string, cut bool, err error) {
	out, cut, err = j.run(ctx, nil, nil, limit, args...)
	return strings.ToValidUTF8(out, "\uFFFD"), cut, err
}

// run runs git; a limit above 0 bounds what is read of its output.
func (j *Journal) run(ctx context.Context, extra []string, stdin []byte, limit int, args ...string) (string, bool, error) {
	bin, err := gitPath()
	if err != nil {
		return "", false, fmt.Errorf("git not found: %w", err)
	}
	full := append([]string{"--git-dir=" + j.gitDir, "--work-tree=" + j.dir, "-c", "core.quotepath=off"}, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Dir = j.dir
	cmd.Env = append(j.gitEnv(), extra...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out := &cappedBuffer{limit: limit}
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &errb
	if err := cmd.Run(); err != nil && !out.cut {
		j.afterKilledGit(ctx)
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return out.String(), false, &GitError{Args: args, Err: err, Stderr: msg}
	}
	return out.String(), out.cut, nil
}

// cappedBuffer keeps the first limit bytes written to it (all when limit
// is 0) and fails the write past them, which stops the copy from git. The
// buffer is a field, not embedded: its ReadFrom would let io.Copy past Write.
type cappedBuffer struct {
	buf   bytes.Buffer
	limit int
	cut   bool
}

var errCapped = errors.New("output limit reached")

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.limit > 0 && b.buf.Len()+len(p) > b.limit {
		n, _ := b.buf.Write(p[:b.limit-b.buf.Len()])
		b.cut = true
		return n, errCapped
	}
	return b.buf.Write(p)
}

func (b *cappedBuffer) String() string { return b.buf.String() }

// GitError is a git command that failed.
type GitError struct {
	Args   []string
	Err    error
	Stderr string
}

func (e *GitError) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("git %s: %v", e.Args[0], e.Err)
	}
	return fmt.Sprintf("git %s: %s", e.Args[0], firstLine(e.Stderr))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimPrefix(line, "fatal: ")
}

// elsewhere are the variables that would point git at another
// repository, work tree, index or configuration.
var elsewhere = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_OBJECT_DIRECTORY": true,
	"GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_COMMON_DIR": true, "GIT_NAMESPACE": true,
	"GIT_CEILING_DIRECTORIES": true, "GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true,
}

func (j *Journal) gitEnv() []string {
	var env []string
	vars := j.Environ
	if vars == nil {
		//processglobal: git runs in the environment of the process that runs it
		vars = os.Environ()
	}
	for _, kv := range vars {
		name, _, _ := strings.Cut(kv, "=")
		if elsewhere[name] || strings.HasPrefix(name, "GIT_AUTHOR_") || strings.HasPrefix(name, "GIT_COMMITTER_") {
			continue
		}
		env = append(env, kv) // GIT_SSH_COMMAND and the like reach the remote
	}
	when := ""
	if j.Now != nil {
		when = strconv.FormatInt(j.Now().Unix(), 10) + " +0000"
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0",
		"GIT_AUTHOR_NAME="+authorName, "GIT_AUTHOR_EMAIL="+authorEmail,
		"GIT_COMMITTER_NAME="+authorName, "GIT_COMMITTER_EMAIL="+authorEmail)
	if when != "" {
		env = append(env, "GIT_AUTHOR_DATE="+when, "GIT_COMMITTER_DATE="+when)
	}
	return env
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
	return j.exclude()
}

// exclude lists the excluded paths in .git/info/exclude, so that stock git
// (status, add -A, zylos's daily commit) leaves them out too.
func (j *Journal) exclude() error {
	path := filepath.Join(j.gitDir, "info", "exclude")
	data, err := regfile.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
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
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	return writeState(path, append(data, strings.Join(add, "\n")+"\n"...))
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
