package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
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
