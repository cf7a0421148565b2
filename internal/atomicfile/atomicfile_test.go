package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFileReplacesAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.md")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "new" {
		t.Fatalf("content = %q, want new", got)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, want 0600 kept", info.Mode().Perm())
	}
	assertNoTemps(t, dir)
}

func TestWriteFileFailureLeavesOldContent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.md")
	os.WriteFile(path, []byte("old"), 0o644)

	createTemp = func(string, string) (*os.File, error) { return nil, syscall.ENOSPC }
	t.Cleanup(func() { createTemp = os.CreateTemp })

	err := WriteFile(path, []byte("new"), 0o644)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old" {
		t.Fatalf("content = %q, want old kept", got)
	}
}

func TestWriteRefusesDirectoryTarget(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(dir, []byte("x"), 0o644); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
}

func TestCreateExclusive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.md")
	if err := CreateExclusive(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := CreateExclusive(path, []byte("two"), 0o644)
	if !errors.Is(err, os.ErrExist) {
		t.Fatalf("second create err = %v, want ErrExist", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "one" {
		t.Fatalf("content = %q, want one", got)
	}
	assertNoTemps(t, dir)
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if matched, _ := filepath.Match(".*.tmp-*", e.Name()); matched {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestIsTempName(t *testing.T) {
	for name, want := range map[string]bool{
		".current.md.tmp-419860973": true, ".index.md.tmp-1": true, ".c4.db.tmp-77": true,
		"current.md.tmp-1": false, ".notes.tmp-draft": false, ".x.tmp-": false, ".tmp-12": false, "..tmp-1": false,
	} {
		if got := IsTempName(name); got != want {
			t.Errorf("IsTempName(%q) = %v, want %v", name, got, want)
		}
	}
}
