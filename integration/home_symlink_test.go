package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// A home reached through a symlink, the tool naming its files by the
// other path each time: the guard refuses a direct write to a record, the
// ingest takes a reference file's new entry into a record, and the journal
// commits the entry and its record as the call's one change, whichever
// of the two paths the home and the tool use.
func TestSymlinkedHomeSeenAlike(t *testing.T) {
	for _, viaLink := range []bool{true, false} {
		real, _ := journalHome(t)
		link := filepath.Join(t.TempDir(), "home-link")
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		home, tool := link, real // --zylos-dir is the link, the tool names real paths
		if !viaLink {
			home, tool = real, link
		}
		r := testutil.Run{ZylosDir: home}
		record := filepath.Join(tool, "memory", "records", "decisions", "forged.json")
		if res := toolHook(t, r, "PreToolUse", "sess-s", "toolu_g", "Write", record); !strings.Contains(res.Stdout, `"permissionDecision":"deny"`) {
			t.Errorf("home %s: the guard let a tool write %s: %+v", home, record, res)
		}
		ref := filepath.Join(tool, "memory", "reference", "decisions.md")
		toolHook(t, r, "PreToolUse", "sess-s", "toolu_r", "Write", ref)
		appendFile(t, ref, "\n### [2026-05-01] Keep the journal in git\n- **Decision:** git\n- **Context:** history\n- **Status:** active\n")
		toolHook(t, r, "PostToolUse", "sess-s", "toolu_r", "Write", ref)
		recs, _ := filepath.Glob(filepath.Join(real, "memory", "records", "decisions", "*.json"))
		if len(recs) != 1 {
			t.Fatalf("home %s: the ingest made records %v, want one", home, recs)
		}
		mem := filepath.Join(real, "memory")
		if got := commitsOf(t, mem); !strings.HasPrefix(got[0], "Write: create decision keep-the-journal-in-git") || !strings.HasSuffix(got[0], "|sess-s|toolu_r") {
			t.Fatalf("home %s: commits:\n%s", home, strings.Join(got, "\n"))
		}
		files := gitIn(t, mem, "show", "--name-only", "--format=", "HEAD")
		if !strings.Contains(files, "reference/decisions.md") || !strings.Contains(files, "records/decisions/") {
			t.Errorf("home %s: the call's commit lacks the entry or its record:\n%s", home, files)
		}
	}
}
