package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An undo given an empty or blank session (what --session
// "$CLAUDE_CODE_SESSION_ID" becomes when the variable is unset) or a
// session with no change is refused with exit 2 in one line, and changes
// nothing: not a file, not the journal.
func TestJournalUndoRefusesNoSession(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	writeThroughHook(t, r, "sess-a", filepath.Join(mem, "notes-a.md"), "from a\n")
	head := gitIn(t, mem, "rev-parse", "HEAD")
	core, _ := os.ReadFile(filepath.Join(mem, "core.md"))
	for _, session := range []string{"", "   ", "sess-unknown"} {
		for _, dry := range []bool{false, true} {
			args := []string{"undo", "--session", session}
			if dry {
				args = append(args, "--dry-run")
			}
			res := r.Exec(t, args...)
			if res.Code != 2 || res.Stdout != "" || strings.Count(res.Stderr, "\n") != 1 || !strings.HasPrefix(res.Stderr, "zylos-memory: undo: ") {
				t.Errorf("undo --session %q (dry %v): exit %d\n%s%s", session, dry, res.Code, res.Stdout, res.Stderr)
			}
		}
	}
	if gitIn(t, mem, "rev-parse", "HEAD") != head {
		t.Error("a refused undo committed")
	}
	if data, _ := os.ReadFile(filepath.Join(mem, "core.md")); string(data) != string(core) {
		t.Error("a refused undo changed core.md")
	}
	if _, err := os.Stat(filepath.Join(mem, "notes-a.md")); err != nil {
		t.Error("a refused undo deleted the session's file")
	}
}

// --dry-run says what an undo would do and does nothing; the undo then
// does it; a second undo says the session is undone already (exit 2),
// never blaming the first undo as a later change in the way.
func TestJournalUndoDryRunThenTwice(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	writeThroughHook(t, r, "sess-a", filepath.Join(mem, "notes-a.md"), "from a\n")
	writeThroughHook(t, r, "sess-b", filepath.Join(mem, "notes-b.md"), "from b\n")
	head := gitIn(t, mem, "rev-parse", "HEAD")
	res := r.Exec(t, "undo", "--session", "sess-a", "--dry-run")
	if res.Code != 0 || !strings.Contains(res.Stdout, "would revert ") || !strings.Contains(res.Stdout, "would delete memory/notes-a.md\n") ||
		strings.Contains(res.Stdout, "notes-b.md") {
		t.Fatalf("dry run: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if gitIn(t, mem, "rev-parse", "HEAD") != head {
		t.Error("a dry run committed")
	}
	if _, err := os.Stat(filepath.Join(mem, "notes-a.md")); err != nil {
		t.Error("a dry run deleted the file")
	}
	if res := r.Exec(t, "undo", "--session", "sess-a"); res.Code != 0 || !strings.Contains(res.Stdout, "undid the 1 change of session sess-a") {
		t.Fatalf("undo: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	res = r.Exec(t, "undo", "--session", "sess-a")
	if res.Code != 2 || !strings.Contains(res.Stderr, `session "sess-a" is undone already`) || strings.Count(res.Stderr, "\n") != 1 {
		t.Fatalf("second undo: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	// A change the session makes after its undo is undone on its own.
	writeThroughHook(t, r, "sess-a", filepath.Join(mem, "notes-c.md"), "later\n")
	res = r.Exec(t, "undo", "--session", "sess-a")
	if res.Code != 0 || strings.Count(res.Stdout, "reverted ") != 1 || !strings.Contains(res.Stdout, "delete notes-c.md") {
		t.Fatalf("undo after more changes: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(mem, "notes-b.md")); err != nil {
		t.Error("undo deleted another session's file")
	}
}
