package integration

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// importChanges appends n commits to the journal of the home at zylos
// with git fast-import, each a typical change of an agent's memory: a line
// appended to the session log (rotated into a dated file every 200
// changes, as the daily rotation does), every tenth the current focus in
// core.md, every seventh an entry of a reference file (the newest 40 kept,
// as consolidation archives the rest). The work tree and the journal's
// stamp are brought in line after, as a commit by the journal leaves them.
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
	coreBase, _ := os.ReadFile(filepath.Join(mem, "core.md"))
	day := time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
	session := "# Session Log: " + day.Format("2006-01-02") + "\n\n"
	refs := map[string][]string{}
	for i := 0; i < n; i++ {
		files := map[string]string{}
		msgPath := ""
		switch {
		case i%200 == 199:
			files["sessions/"+day.Format("2006-01-02")+".md"] = session
			day = day.AddDate(0, 0, 1)
			session = "# Session Log: " + day.Format("2006-01-02") + "\n\n"
			files["sessions/current.md"] = session
			msgPath = "sessions/current.md"
		case i%10 == 9:
			files["core.md"] = string(coreBase) + fmt.Sprintf("\n## Current focus\n- task %d: the queue consumer\n", i)
			msgPath = "core.md"
		case i%7 == 6:
			path := fmt.Sprintf("reference/topic-%d.md", i%20)
			entries := append(refs[path], fmt.Sprintf("\n### Entry %d\n- **Notes:** a note of some length about item %d and why it matters\n", i, i))
			if len(entries) > 40 {
				entries = entries[1:]
			}
			refs[path] = entries
			files[path] = "# Topic\n" + strings.Join(entries, "")
			msgPath = path
		default:
			session += fmt.Sprintf("- %02d:%02d worked on task %d, decided to keep the queue in SQLite\n", i%24, i%60, i)
			files["sessions/current.md"] = session
			msgPath = "sessions/current.md"
		}
		msg := fmt.Sprintf("Write: update %s\n\nZylos-Source: hook\nZylos-Session: s-%d\nZylos-Tool: Write\n", msgPath, i/50)
		fmt.Fprintf(w, "commit %s\ncommitter Zylos <zylos@local> %d +0000\ndata %d\n%s", branch, day.Unix()+int64(i%86400), len(msg), msg)
		if i == 0 {
			fmt.Fprintf(w, "from %s\n", head)
		}
		for path, data := range files {
			fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path, len(data), data)
		}
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
		buildPathIndex(b, zylos)
	}
	return zylos, r
}

// buildPathIndex has the memory service build the journal's path index,
// as it does at its first poll, and stops it.
func buildPathIndex(tb testing.TB, zylos string) {
	tb.Helper()
	d := startService(tb, zylos)
	tip := filepath.Join(zylos, "memory", ".git", "zylos-journal-paths-tip")
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(tip); err == nil {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the service built no path index:\n%s", d.logText())
		}
	}
	d.stop(tb, syscall.SIGTERM)
}

// timed runs the binary (or another program) once and answers its wall
// time and the CPU time it and its children used: on a busy machine the
// CPU time is the steadier figure.
func timed(b *testing.B, r testutil.Run, bin string, args ...string) (wall, cpu time.Duration) {
	b.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = r.Environ()
	cmd.Stdin = strings.NewReader(r.Stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		b.Fatalf("%s %v: %v %s", bin, args, err, stderr.String())
	}
	wall = time.Since(start)
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// BenchmarkJournalHook times the PostToolUse hook as a process after a
// Write of core.md on a journal of 100,000 commits (one-change, and its
// ratio to the empty static cgo program), and after a Write outside
// memory and after a Bash command that changed nothing, each with the
// journal on and off on the same home (nothing, off, bash-nothing,
// bash-off): a Write elsewhere costs the journal nothing, a shell command
// a stat of the memory tree, neither runs git. -ms is wall time, -cpu-ms the CPU time of the
// process and its git children.
func BenchmarkJournalHook(b *testing.B) {
	empty := emptyCgoProgram(b)
	bin := testutil.Binary(b)
	zylos, r := benchHome(b, 100000)
	offMark := filepath.Join(zylos, "memory", ".state", "journal-off") // what init --journal=false writes
	core := filepath.Join(zylos, "memory", "core.md")
	base, _ := os.ReadFile(core)
	elsewhere := filepath.Join(b.TempDir(), "notes.txt")
	change := r
	change.Stdin = writePayload("bench", core)
	still, shell := r, r
	still.Stdin = writePayload("bench", elsewhere)
	shell.Stdin = `{"hook_event_name":"PostToolUse","session_id":"bench","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{},"cwd":"/"}`
	var t [6][2]time.Duration // empty, change, still, off, shell, shell off: wall, cpu
	add := func(k int, r testutil.Run, bin string, args ...string) {
		wall, cpu := timed(b, r, bin, args...)
		t[k][0] += wall
		t[k][1] += cpu
	}
	i := 0
	for b.Loop() {
		i++
		os.WriteFile(core, append(base, fmt.Sprintf("- bench fact %d\n", i)...), 0o644)
		add(0, testutil.Run{}, empty)
		add(1, change, bin, "hook", "post-tool-use")
		add(2, still, bin, "hook", "post-tool-use")
		add(4, shell, bin, "hook", "post-tool-use")
		os.WriteFile(offMark, nil, 0o644)
		add(3, still, bin, "hook", "post-tool-use")
		add(5, shell, bin, "hook", "post-tool-use")
		os.Remove(offMark)
	}
	if got := gitIn(b, filepath.Join(zylos, "memory"), "log", "-1", "--format=%s"); got != "Write: update core.md\n" {
		b.Fatalf("the hook did not commit: %q", got)
	}
	n := float64(b.N)
	for k, name := range []string{"empty", "one-change", "nothing", "off", "bash-nothing", "bash-off"} {
		b.ReportMetric(ms(t[k][0])/n, name+"-ms")
		b.ReportMetric(ms(t[k][1])/n, name+"-cpu-ms")
	}
	b.ReportMetric(float64(t[1][0])/float64(t[0][0]), "ratio")
	b.ReportMetric(float64(t[1][1])/float64(t[0][1]), "cpu-ratio")
}

// BenchmarkJournalHistory times `history` of core.md over a journal of
// 100,000 commits (about 9,500 of them touch core.md): as typed (the
// newest 50), the newest 20, and all of them; and (once-long-ago) the
// history of preferences.md, which only the first commit touched.
func BenchmarkJournalHistory(b *testing.B) {
	_, r := benchHome(b, 100000)
	for _, c := range []struct {
		name string
		args []string
	}{{"default", nil}, {"limit-20", []string{"--limit", "20"}}, {"all", []string{"--limit", "0"}}, {"once-long-ago", nil}} {
		b.Run(c.name, func(b *testing.B) {
			args := append([]string{"history"}, c.args...)
			if c.name == "once-long-ago" {
				args = append(args, "memory/reference/preferences.md")
			} else {
				args = append(args, "memory/core.md")
			}
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

// BenchmarkJournalToolCall times one tool call of the agent that changes
// memory, as Claude Code runs its hooks: PreToolUse (the call's window
// opened), a Write of core.md, PostToolUse (the change committed under the
// call), each hook a whole process, on a fresh journal and on one of
// 100,000 commits, answered by the memory service (served) and in their
// own processes (inproc), against the empty static cgo program. post-ms
// and its ratio are the PostToolUse hook alone.
func BenchmarkJournalToolCall(b *testing.B) {
	empty := emptyCgoProgram(b)
	for _, size := range []struct {
		name    string
		commits int
	}{{"fresh", 0}, {"100k", 100000}} {
		b.Run(size.name, func(b *testing.B) {
			served, _ := benchHome(b, size.commits)
			alone, _ := benchHome(b, size.commits)
			startService(b, served)
			var emptyTime time.Duration
			var post, both [2]time.Duration // served, alone
			i := 0
			for b.Loop() {
				i++
				t0 := time.Now()
				if out, err := exec.Command(empty).CombinedOutput(); err != nil {
					b.Fatal(err, string(out))
				}
				emptyTime += time.Since(t0)
				for k, zylos := range []string{served, alone} {
					core := filepath.Join(zylos, "memory", "core.md")
					id := fmt.Sprintf("toolu_bench_%d", i)
					pre := testutil.Run{ZylosDir: zylos, Stdin: toolCallPayload("PreToolUse", "bench", id, "Write", core)}
					after := testutil.Run{ZylosDir: zylos, Stdin: toolCallPayload("PostToolUse", "bench", id, "Write", core)}
					t1 := time.Now()
					pre.Exec(b, "hook", "pre-tool-use")
					appendFile(b, core, fmt.Sprintf("- bench fact %d\n", i))
					t2 := time.Now()
					after.Exec(b, "hook", "post-tool-use")
					post[k] += time.Since(t2)
					both[k] += time.Since(t1)
				}
			}
			for _, zylos := range []string{served, alone} {
				if got := gitIn(b, filepath.Join(zylos, "memory"), "log", "-1", "--format=%s"); got != "Write: update core.md\n" {
					b.Fatalf("the hook did not commit: %q", got)
				}
			}
			n := float64(b.N)
			b.ReportMetric(ms(emptyTime)/n, "empty-ms")
			for k, name := range []string{"served", "inproc"} {
				b.ReportMetric(ms(post[k])/n, name+"-post-ms")
				b.ReportMetric(float64(post[k])/float64(emptyTime), name+"-post-ratio")
				b.ReportMetric(ms(both[k])/n, name+"-call-ms")
			}
		})
	}
}
