package team

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/zylos/zylos-memory/internal/gitobj"
	"github.com/zylos/zylos-memory/tiers/journal"
)

// The refs of the exchange's repository.
const (
	// teamRefs is where every home publishes, on the remote: one ref each.
	teamRefs = "refs/zylos/team/"
	// fetchedRefs holds the members' refs as the last fetch found them.
	fetchedRefs = "refs/zylos/fetched/"
	// appliedRefs holds, for each member, its commit this home applied
	// last: the base of the next merge.
	appliedRefs = "refs/zylos/applied/"
	// ownRef is this home's published commit, pushed to teamRefs+name.
	ownRef = "refs/zylos/own"
)

// homeFile is the file at the top of a member's tree naming its home.
const homeFile = "home.json"

// repo is the exchange's bare repository: its objects written and read
// in this process, its refs and its transfers by git.
type repo struct {
	dir     string
	environ []string
	st      *filesystem.Storage
}

// openRepo opens (and at first creates) the bare repository at dir.
func openRepo(ctx context.Context, dir string, environ []string) (*repo, error) {
	r := &repo{dir: dir, environ: environ}
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		if _, err := r.git(ctx, "init", "--bare", "--quiet"); err != nil {
			return nil, err
		}
	}
	r.st = filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRUDefault(), filesystem.Options{})
	return r, nil
}

// backgroundNice is the niceness the exchange's git runs at.
const backgroundNice = 10

// remoteWait bounds a transfer with the remote: one that never answers
// (a stalled ssh, a daemon that accepts and says nothing, a hung network
// disk) would otherwise hold the sync lock, and every later sync, for
// good.
var remoteWait = 10 * time.Minute

// git runs git on the repository, isolated as the journal's is, and
// answers its output; its error is its first line.
func (r *repo) git(ctx context.Context, args ...string) (string, error) {
	parent, verb := ctx, args[0]
	switch args[0] {
	case "fetch", "push", "ls-remote":
		// Only transports that reach a repository: fd:: would wait on a
		// descriptor for the whole transfer, ext:: run a command.
		args = append([]string{"-c", "protocol.fd.allow=never", "-c", "protocol.ext.allow=never"}, args...)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, remoteWait)
		defer cancel()
	}
	cmd, err := journal.Git(ctx, r.environ, r.dir, args...)
	if err != nil {
		return "", err
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Start()
	if err == nil {
		// A sync is background work: the hooks that run meanwhile come
		// first. (git's own children, a local remote's upload-pack,
		// inherit it.)
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, cmd.Process.Pid, backgroundNice)
		err = cmd.Wait()
	}
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if i := strings.LastIndex(msg, "fatal: "); i >= 0 {
			msg = msg[i+len("fatal: "):]
		}
		if line, _, _ := strings.Cut(msg, "\n"); line != "" {
			msg = line
		}
		if msg == "" {
			msg = err.Error()
		}
		switch {
		case parent.Err() != nil:
			msg = parent.Err().Error()
		case ctx.Err() != nil:
			msg = fmt.Sprintf("no answer from the remote within %v", remoteWait)
		}
		return "", fmt.Errorf("git %s: %s", verb, msg)
	}
	return out.String(), nil
}

// ref answers the commit a ref names, plumbing.ZeroHash when none.
func (r *repo) ref(name string) plumbing.Hash {
	ref, err := r.st.Reference(plumbing.ReferenceName(name))
	if err != nil || ref.Type() != plumbing.HashReference {
		return plumbing.ZeroHash
	}
	return ref.Hash()
}

// refs lists the refs under prefix by the name after it.
func (r *repo) refs(ctx context.Context, prefix string) (map[string]plumbing.Hash, error) {
	out, err := r.git(ctx, "for-each-ref", "--format=%(objectname) %(refname)", prefix)
	if err != nil {
		return nil, err
	}
	got := map[string]plumbing.Hash{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		hash, name, ok := strings.Cut(line, " ")
		if ok {
			got[strings.TrimPrefix(name, prefix)] = plumbing.NewHash(hash)
		}
	}
	return got, nil
}

// setRef points name at h if it still names old (compare and swap, under
// git's own lock file).
func (r *repo) setRef(ctx context.Context, name string, h, old plumbing.Hash) error {
	oldArg := old.String()
	if old.IsZero() {
		oldArg = ""
	}
	_, err := r.git(ctx, "update-ref", name, h.String(), oldArg)
	return err
}

// tree stores the tree of files (slash-separated paths to contents),
// answering its hash.
func (r *repo) tree(files map[string][]byte) (plumbing.Hash, error) {
	dirs := map[string]map[string][]byte{}
	var entries []object.TreeEntry
	for path, data := range files {
		if dir, rest, deeper := strings.Cut(path, "/"); deeper {
			if dirs[dir] == nil {
				dirs[dir] = map[string][]byte{}
			}
			dirs[dir][rest] = data
			continue
		}
		h, err := gitobj.Blob(r.st, data)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: path, Mode: filemode.Regular, Hash: h})
	}
	for dir, below := range dirs {
		h, err := r.tree(below)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: dir, Mode: filemode.Dir, Hash: h})
	}
	return gitobj.Tree(r.st, entries)
}

// commit stores a commit of tree on parent (zero: none).
func (r *repo) commit(tree, parent plumbing.Hash, message string, when time.Time) (plumbing.Hash, error) {
	sig := object.Signature{Name: "zylos-memory", Email: "zylos-memory@localhost", When: when.UTC()}
	return gitobj.Commit(r.st, tree, parent, sig, message)
}

// The bounds of a member's tree as read: a member can push a tree of
// many paths to one large blob for the cost of one.
const (
	maxFiles     = 100_000
	maxTreeBytes = 64 << 20
)

// files reads the files of commit c's tree, each up to limit bytes; a
// bigger one is answered as too big, unread. A tree of more than
// maxFiles files or maxTreeBytes in all is an error. A zero c has none.
func (r *repo) files(c plumbing.Hash, limit int64) (map[string][]byte, []string, error) {
	got := map[string][]byte{}
	var skipped []string
	if c.IsZero() {
		return got, nil, nil
	}
	commit, err := object.GetCommit(r.st, c)
	if err != nil {
		return nil, nil, err
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, nil, err
	}
	var total int64
	read := map[plumbing.Hash][]byte{} // a blob many paths name is read once
	err = tree.Files().ForEach(func(f *object.File) error {
		if len(got)+len(skipped) >= maxFiles {
			return fmt.Errorf("over %d files: left alone", maxFiles)
		}
		if f.Mode != filemode.Regular {
			skipped = append(skipped, fmt.Sprintf("%s: not a regular file", f.Name))
			return nil
		}
		if f.Size > limit {
			skipped = append(skipped, fmt.Sprintf("%s: %d bytes, over the limit of %d", f.Name, f.Size, limit))
			return nil
		}
		if data, ok := read[f.Hash]; ok {
			got[f.Name] = data
			return nil
		}
		if total += f.Size; total > maxTreeBytes {
			return fmt.Errorf("over %d MiB in all: left alone", maxTreeBytes>>20)
		}
		rd, err := f.Reader()
		if err != nil {
			return err
		}
		defer rd.Close()
		data := make([]byte, f.Size)
		if _, err := io.ReadFull(rd, data); err != nil {
			return err
		}
		got[f.Name], read[f.Hash] = data, data
		return nil
	})
	return got, skipped, err
}
