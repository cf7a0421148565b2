package journal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The engine's trees are git's: names that sort differently as a file
// and as a directory (a.md, a-b, a/, a0), a nested new directory, a
// removed one, a symlink and an executable; stock git fsck accepts them
// and git status finds the work tree clean.
func TestEngineTreesAreGits(t *testing.T) {
	j, mem := home(t)
	// A deadline, as a hook's: the commit is written in process.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	write := func(rel, text string) {
		p := filepath.Join(mem, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	for _, rel := range []string{"a.md", "a-b", "a/b.md", "a0", "deep/er/still/x.md", "gone/y.md"} {
		write(rel, rel+"\n")
	}
	if _, err := j.Commit(ctx, Change{Source: FromExternal}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(mem, "gone"))
	os.Symlink("a.md", filepath.Join(mem, "link"))
	write("run.sh", "#!/bin/sh\n")
	os.Chmod(filepath.Join(mem, "run.sh"), 0o755)
	write("a/c.md", "c\n")
	res, err := j.Commit(ctx, Change{Source: FromCommand, Command: "test"})
	if err != nil || res == nil {
		t.Fatalf("commit: %v %v", res, err)
	}
	if got := Describe(res.Files); got != "create a/c.md, delete gone/y.md, create link, and 1 more" {
		t.Errorf("described as %q", got)
	}
	gitOut(t, mem, "fsck", "--strict", "--no-progress")
	if st := gitOut(t, mem, "status", "--porcelain"); st != "" {
		t.Errorf("not clean after the commit:\n%s", st)
	}
	tree := gitOut(t, mem, "ls-tree", "-r", "HEAD")
	for _, want := range []string{"120000 blob", "100755 blob"} {
		if !strings.Contains(tree, want) {
			t.Errorf("no %s in\n%s", want, tree)
		}
	}
}

// Lines lost are counted as a diff counts them: a moved line is not lost,
// and a file that grows loses nothing.
func TestLostLines(t *testing.T) {
	for _, c := range []struct {
		old, cur string
		want     []string
	}{
		{"a\nb\nc\n", "a\n", []string{"b", "c"}},
		{"a\nb\nc\n", "c\na\nb\n", nil},
		{"a\nb\n", "a\nx\ny\n", nil},
		{"a\na\nb\n", "a\n", []string{"a", "b"}},
	} {
		if got := lostLines([]byte(c.old), []byte(c.cur)); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("lostLines(%q, %q) = %q, want %q", c.old, c.cur, got, c.want)
		}
	}
}
