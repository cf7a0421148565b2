package journal

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/tiers"
)

func home(t *testing.T) (*Journal, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	l := tiers.Layout{ZylosDir: filepath.Join(t.TempDir(), "zylos")}
	mem := l.MemoryDir()
	os.MkdirAll(filepath.Join(mem, "reference"), 0o755)
	os.WriteFile(filepath.Join(mem, "core.md"), []byte("# Core\n\none\ntwo\nthree\n"), 0o644)
	j := Open(l)
	if _, err := j.Commit(context.Background(), Change{Source: FromCommand, Command: "init"}); err != nil {
		t.Fatal(err)
	}
	return j, mem
}

// A commit carries its provenance in trailers stock git reads; a commit
// with nothing changed is never made; the excluded files stay out.
func TestCommitTrailersAndNoEmptyCommit(t *testing.T) {
	j, mem := home(t)
	ctx := context.Background()
	os.WriteFile(filepath.Join(mem, "core.md"), []byte("# Core\n\none\n"), 0o644)
	os.MkdirAll(filepath.Join(mem, "records", ".staging"), 0o755)
	os.WriteFile(filepath.Join(mem, "records", ".staging", "in.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(mem, "records", ".index.lock"), nil, 0o644)
	os.WriteFile(filepath.Join(mem, ".core.md.tmp-123"), nil, 0o644)
	res, err := j.Commit(ctx, Change{Source: FromHook, Session: "s1", Tool: "Write"})
	if err != nil || res == nil {
		t.Fatalf("commit: %v %v", res, err)
	}
	want := "Write: update core.md\n\nZylos-Source: hook\nZylos-Session: s1\nZylos-Tool: Write\n"
	if got := gitOut(t, mem, "log", "-1", "--format=%B"); got != want+"\n" {
		t.Errorf("message:\n%q\nwant\n%q", got, want)
	}
	if len(res.Losses) != 1 || res.Losses[0].Path != "core.md" || strings.Join(res.Losses[0].Lines, "|") != "two|three" {
		t.Errorf("losses: %+v", res.Losses)
	}
	if res, err := j.Commit(ctx, Change{Source: FromCommand, Command: "rotate"}); res != nil || err != nil {
		t.Errorf("nothing changed, yet: %+v %v", res, err)
	}
	if n := strings.Count(gitOut(t, mem, "log", "--oneline"), "\n"); n != 2 {
		t.Errorf("%d commits, want 2", n)
	}
	if files := gitOut(t, mem, "ls-files"); files != "core.md\n" {
		t.Errorf("tracked: %q", files)
	}
}

// A git lock no process holds open (its git was killed) is recovered at
// once, whoever made it; one a live program holds open makes the commit
// wait, and it goes through once the lock is gone.
func TestStaleLocks(t *testing.T) {
	j, mem := home(t)
	ctx := context.Background()
	lock := filepath.Join(mem, ".git", "index.lock")
	os.WriteFile(lock, nil, 0o644)
	os.WriteFile(filepath.Join(mem, "a.md"), []byte("a\n"), 0o644)
	if res, err := j.Commit(ctx, Change{Source: FromExternal}); err != nil || res == nil {
		t.Fatalf("after a killed git: %v %v", res, err)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("the dead lock is still there: %v", err)
	}
	holder, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(mem, "b.md"), []byte("b\n"), 0o644)
	if _, err := j.Commit(ctx, Change{Source: FromExternal}); !errors.Is(err, ErrBusy) {
		t.Fatalf("with a live program's lock: %v", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatal("a live program's lock was removed")
	}
	holder.Close()
	os.Remove(lock)
	res, err := j.Commit(ctx, Change{Source: FromExternal})
	if err != nil || res == nil || res.Files[0].Path != "b.md" {
		t.Fatalf("once the lock is gone: %v %v", res, err)
	}
	if st := gitOut(t, mem, "status", "--porcelain"); st != "" {
		t.Errorf("the index is not in step:\n%s", st)
	}
}

// A problem is told once, until it changes or the journal works again.
func TestProblemToldOnce(t *testing.T) {
	j, mem := home(t)
	os.RemoveAll(filepath.Join(mem, ".git"))
	os.WriteFile(filepath.Join(mem, ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
	os.WriteFile(filepath.Join(mem, "core.md"), []byte("x\n"), 0o644)
	var told []bool
	for i := 0; i < 3; i++ {
		_, err := j.Commit(context.Background(), Change{Source: FromExternal})
		if err == nil {
			t.Fatal("a memory/.git file was used")
		}
		told = append(told, j.NewProblem(err))
	}
	if told[0] != true || told[1] || told[2] {
		t.Errorf("told %v, want once", told)
	}
}

func TestParseLosses(t *testing.T) {
	diff := "diff --git a/core.md b/core.md\nindex 1..2 100644\n--- a/core.md\n+++ b/core.md\n@@ -2,3 +2 @@\n-kept moved\n-gone\n-\n+kept moved\n" +
		"diff --git a/reference/x.md b/reference/x.md\n--- a/reference/x.md\n+++ b/reference/x.md\n@@ -1 +1 @@\n-old\n+new\n"
	got := parseLosses(diff, watched)
	if len(got) != 1 || got[0].Path != "core.md" || strings.Join(got[0].Lines, "|") != "gone|" {
		t.Errorf("losses: %+v", got)
	}
	advice := Advice(got, "0123456789abcdef", "/bin/zylos-memory --zylos-dir /z")
	want := `This change removed memory: 2 lines left memory/core.md ("gone"); if that was not meant, restore it with: /bin/zylos-memory --zylos-dir /z restore memory/core.md --at 0123456789.`
	if advice != want {
		t.Errorf("advice:\n%s\nwant\n%s", advice, want)
	}
}

func TestDescribe(t *testing.T) {
	got := Describe([]FileChange{{'M', "records/decisions/use-postgres.json"}, {'A', "core.md"}, {'D', "sessions/a.md"}, {'M', "zz.md"}})
	if want := "create core.md, update decision use-postgres, delete sessions/a.md, and 1 more"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func FuzzParseGitOutput(f *testing.F) {
	f.Add("diff --git a/core.md b/core.md\n--- a/core.md\n+++ b/core.md\n-x\n")
	f.Add("\x1eabc\x1f1\x1fs\x1fhook\x1f\x1f\x1f\x1f\n1\t2\tcore.md\n")
	f.Fuzz(func(t *testing.T, s string) {
		parseLosses(s, watched)
		parseRaw(s)
		parseLog(s)
		parseNameStatus(s)
		parseBatch(s)
	})
}
