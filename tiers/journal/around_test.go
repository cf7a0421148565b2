package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Around commits the external edit found before the write apart from the
// write's own change, and a failed write still has what it changed
// committed and its error answered, with no journal warning.
func TestAroundCommitsExternalEditFirst(t *testing.T) {
	j, mem := home(t)
	os.WriteFile(filepath.Join(mem, "core.md"), []byte("# Core\n\nhand edit\n"), 0o644)
	var warned []error
	failed := errors.New("half done")
	err := j.Around(context.Background(), CommandChange("mcp memory_save", "s-9"), func(err error) { warned = append(warned, err) }, func() error {
		os.WriteFile(filepath.Join(mem, "reference", "notes.md"), []byte("# Notes\n"), 0o644)
		return failed
	})
	if err != failed || len(warned) != 0 {
		t.Fatalf("Around answered %v, warned %v", err, warned)
	}
	got := gitOut(t, mem, "log", "-2", "--format=%s|%(trailers:only,unfold,separator=%x2C )")
	want := "mcp memory_save: create reference/notes.md|Zylos-Source: command, Zylos-Session: s-9, Zylos-Command: mcp memory_save\n" +
		"external edit: update core.md|Zylos-Source: external\n"
	if got != want {
		t.Errorf("commits:\n%s\nwant\n%s", got, want)
	}
}

// A git of ours killed at a hook's deadline leaves its lock files; under
// the journal lock they are removed at once, even though this process
// lives on (the memory service), and never outside it, where they may be
// a committer's at work.
func TestKilledGitLeavesNoLock(t *testing.T) {
	j, mem := home(t)
	index := filepath.Join(mem, ".git", "index.lock")
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	os.WriteFile(index, nil, 0o644)
	j.afterKilledGit(ended)
	if _, err := os.Stat(index); err != nil {
		t.Fatalf("a lock removed outside the journal lock: %v", err)
	}
	os.Remove(index)
	holder, err := os.Create(index) // another program's, open while it works
	if err != nil {
		t.Fatal(err)
	}
	release, err := j.lock(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(index); err != nil {
		t.Fatal("a lock another program holds open was removed")
	}
	release()
	holder.Close()
	os.Remove(index)
	release, err = j.lock(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(index, nil, 0o644) // as a git killed mid-commit leaves it
	j.afterKilledGit(context.Background())
	if _, err := os.Stat(index); err != nil {
		t.Fatal("removed after a git that was not killed")
	}
	j.afterKilledGit(ended)
	if _, err := os.Stat(index); !os.IsNotExist(err) {
		t.Fatalf("a killed git's lock is left: %v", err)
	}
	release()
	if _, err := j.Commit(context.Background(), Change{Source: FromExternal}); err != nil {
		t.Fatalf("the next commit: %v", err)
	}
}
