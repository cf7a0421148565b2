package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// A home reached through a symlink is one home to the guard, the ingest
// and the journal alike: a record written by its real path is refused;
// an edit of the reference tier by its real path is ingested into the
// records of that home; and the journal commits the file and the records
// the ingest wrote as the call's one change, leaving nothing behind as
// an external edit.
func TestSymlinkedHomeSeenAlike(t *testing.T) {
	real, _ := journalHome(t)
	link := filepath.Join(t.TempDir(), "home-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	r := testutil.Run{ZylosDir: link}
	mem := filepath.Join(real, "memory")

	for _, path := range []string{filepath.Join(mem, "records", "decisions", "x.json"), filepath.Join(link, "memory", "records", "decisions", "x.json")} {
		res := toolHook(t, r, "PreToolUse", "sess-s", "toolu_g", "Write", path)
		if !strings.Contains(res.Stdout, `"permissionDecision":"deny"`) {
			t.Errorf("the guard let a record be written at %s: %+v", path, res)
		}
	}

	decisions := filepath.Join(mem, "reference", "decisions.md")
	toolHook(t, r, "PreToolUse", "sess-s", "toolu_s", "Edit", decisions)
	appendFile(t, decisions, "\n### [2026-03-01] Keep the llama farm\n- **Decision:** keep it\n- **Status:** active\n")
	res := toolHook(t, r, "PostToolUse", "sess-s", "toolu_s", "Edit", decisions)
	rec := filepath.Join(mem, "records", "decisions", "keep-the-llama-farm.json")
	if _, err := os.Stat(rec); err != nil {
		t.Fatalf("the ingest wrote no record in the real home: %v; %+v", err, res)
	}
	got := commitsOf(t, mem)
	if !strings.HasSuffix(got[0], "|sess-s|toolu_s") {
		t.Fatalf("the call's change is not the last commit:\n%s", strings.Join(got, "\n"))
	}
	files := strings.Fields(gitIn(t, mem, "show", "--name-only", "--format=", "HEAD"))
	for _, want := range []string{"reference/decisions.md", "records/decisions/keep-the-llama-farm.json", "records/index.md"} {
		if !contains(files, want) {
			t.Errorf("the call's commit lacks %s: %v", want, files)
		}
	}
	if st := gitIn(t, mem, "status", "--porcelain", "--untracked-files=all"); strings.TrimSpace(st) != "" {
		t.Errorf("left uncommitted after the call:\n%s", st)
	}
}
