package integration

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// importChanges appends n commits to the journal of the home at zylos
// with git fast-import, each a typical change: a line appended to the
// session log, every tenth an edit of core.md, every seventh a reference
// file's. The work tree and the journal's stamp are brought in line
// after, as a commit by the journal would leave them.
func importChanges(tb testing.TB, zylos string, n int) {
	tb.Helper()
	mem := filepath.Join(zylos, "memory")
	cmd := exec.Command("git", "-C", mem, "fast-import", "--quiet")
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(in, 1<<20)
	head := strings.TrimSpace(gitIn(tb, mem, "rev-parse", "HEAD"))
	branch := strings.TrimSpace(gitIn(tb, mem, "symbolic-ref", "HEAD"))
	session := "# Session Log: 2026-03-15\n\n"
	core := "# Core Memory\n\n## Identity\nI am a Zylos agent.\n"
	refs := map[string]string{}
	start := time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC).Unix()
	for i := 0; i < n; i++ {
		var path, data string
		switch {
		case i%10 == 9:
			core += fmt.Sprintf("- fact %d learnt about the owner's projects\n", i)
			path, data = "core.md", core
		case i%7 == 6:
			path = fmt.Sprintf("reference/topic-%d.md", i%20)
			refs[path] += fmt.Sprintf("\n### Entry %d\n- **Notes:** a note of some length about item %d\n", i, i)
			data = refs[path]
		default:
			session += fmt.Sprintf("- %d: worked on task %d, decided to keep the queue in SQLite\n", i, i)
			path, data = "sessions/current.md", session
		}
		msg := fmt.Sprintf("Write: update %s\n\nZylos-Source: hook\nZylos-Session: s-%d\nZylos-Tool: Write\n", path, i/50)
		fmt.Fprintf(w, "commit %s\ncommitter Zylos <zylos@local> %d +0000\ndata %d\n%s", branch, start+int64(i), len(msg), msg)
		if i == 0 {
			fmt.Fprintf(w, "from %s\n", head)
		}
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path, len(data), data)
	}
	w.Flush()
	in.Close()
	if err := cmd.Wait(); err != nil {
		tb.Fatalf("fast-import: %v", err)
	}
	gitIn(tb, mem, "reset", "-q", "--hard")
	// One journal commit brings its stamp in line with the tree.
	os.WriteFile(filepath.Join(mem, "sessions", "current.md"), []byte(session+"- settled\n"), 0o644)
	if res := (testutil.Run{ZylosDir: zylos}).Exec(tb, "rotate"); res.Code != 0 {
		tb.Fatalf("rotate: %+v", res)
	}
}

func benchHome(b *testing.B, commits int) (string, testutil.Run) {
	b.Helper()
	zylos := filepath.Join(b.TempDir(), "zylos")
	r := testutil.Run{ZylosDir: zylos}
	if res := r.Exec(b, "init"); res.Code != 0 {
		b.Fatalf("init: %+v", res)
	}
	if commits > 0 {
		importChanges(b, zylos, commits)
		// What the memory service keeps up: the commit-graph with
		// changed-path filters, which git log reads for one file's history.
		gitIn(b, filepath.Join(zylos, "memory"), "commit-graph", "write", "--reachable", "--changed-paths")
	}
	return zylos, r
}

// BenchmarkJournalHook times the PostToolUse hook as a process after a
// Write of core.md on a journal of 100,000 commits (one-change-ms,
// ratio to the empty static cgo program), and after a Write outside
// memory with the journal on and off (nothing-ms, off-ms): a hook that
// changed nothing runs no git.
func BenchmarkJournalHook(b *testing.B) {
	empty := emptyCgoProgram(b)
	zylos, r := benchHome(b, 100000)
	offHome, off := benchHome(b, 0)
	off.Exec(b, "init", "--journal=false")
	core := filepath.Join(zylos, "memory", "core.md")
	base, _ := os.ReadFile(core)
	elsewhere := filepath.Join(b.TempDir(), "notes.txt")
	change := r
	change.Stdin = writePayload("bench", core)
	still, stillOff := r, off
	still.Stdin, stillOff.Stdin = writePayload("bench", elsewhere), writePayload("bench", elsewhere)
	_ = offHome
	var emptyT, changeT, stillT, offT time.Duration
	i := 0
	for b.Loop() {
		i++
		os.WriteFile(core, append(base, fmt.Sprintf("- bench fact %d\n", i)...), 0o644)
		t0 := time.Now()
		exec.Command(empty).Run()
		t1 := time.Now()
		if res := change.Exec(b, "hook", "post-tool-use"); res.Code != 0 || res.Stderr != "" {
			b.Fatalf("hook: %+v", res)
		}
		t2 := time.Now()
		still.Exec(b, "hook", "post-tool-use")
		t3 := time.Now()
		stillOff.Exec(b, "hook", "post-tool-use")
		emptyT += t1.Sub(t0)
		changeT += t2.Sub(t1)
		stillT += t3.Sub(t2)
		offT += time.Since(t3)
	}
	if got := gitIn(b, filepath.Join(zylos, "memory"), "log", "-1", "--format=%s"); got != "Write: update core.md\n" {
		b.Fatalf("the hook did not commit: %q", got)
	}
	n := float64(b.N)
	b.ReportMetric(ms(emptyT)/n, "empty-ms")
	b.ReportMetric(ms(changeT)/n, "one-change-ms")
	b.ReportMetric(float64(changeT)/float64(emptyT), "ratio")
	b.ReportMetric(ms(stillT)/n, "nothing-ms")
	b.ReportMetric(ms(offT)/n, "off-ms")
}

// BenchmarkJournalHistory times `history` of core.md over a journal of
// 100,000 commits (10,000 of them touch core.md): all of them, and the
// newest 20.
func BenchmarkJournalHistory(b *testing.B) {
	_, r := benchHome(b, 100000)
	for _, c := range []struct {
		name string
		args []string
	}{{"all", nil}, {"limit-20", []string{"--limit", "20"}}} {
		b.Run(c.name, func(b *testing.B) {
			args := append([]string{"history"}, c.args...)
			args = append(args, "memory/core.md")
			for b.Loop() {
				if res := r.Exec(b, args...); res.Code != 0 || res.Stdout == "" {
					b.Fatalf("history: %+v", res)
				}
			}
		})
	}
}

// BenchmarkJournalSize reports the journal's size on disk after 10,000
// typical changes, packed as git gc --auto packs it.
func BenchmarkJournalSize(b *testing.B) {
	for b.Loop() {
		zylos, _ := benchHome(b, 10000)
		mem := filepath.Join(zylos, "memory")
		gitIn(b, mem, "gc", "--quiet")
		var size int64
		filepath.WalkDir(filepath.Join(mem, ".git"), func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil {
					size += info.Size()
				}
			}
			return nil
		})
		b.ReportMetric(float64(size)/(1<<20), "MiB")
	}
}
