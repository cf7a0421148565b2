package gitobj

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// What it writes, git reads as its own: a tree whose names sort
// differently as a file and as a directory ("a" before "a.b" as a file,
// after it as a directory) passes a strict fsck.
func TestObjectsAreGits(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r.git")
	if out, err := exec.Command("git", "init", "--bare", "--quiet", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	st := filesystem.NewStorage(osfs.New(dir), cache.NewObjectLRUDefault())
	blob, err := Blob(st, []byte("hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := Tree(st, []object.TreeEntry{{Name: "x", Mode: filemode.Regular, Hash: blob}})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := Tree(st, []object.TreeEntry{
		{Name: "a.b", Mode: filemode.Regular, Hash: blob},
		{Name: "a", Mode: filemode.Dir, Hash: sub},
		{Name: "a-", Mode: filemode.Regular, Hash: blob},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Commit(st, tree, plumbing.ZeroHash, object.Signature{Name: "t", Email: "t@t", When: time.Unix(0, 0)}, "m\n")
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"--git-dir=" + dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("update-ref", "refs/heads/main", c.String())
	git("fsck", "--strict", "--no-dangling")
	if got := strings.Fields(git("ls-tree", "--name-only", "-r", c.String())); strings.Join(got, " ") != "a- a.b a/x" {
		t.Errorf("git reads %v", got)
	}
}
