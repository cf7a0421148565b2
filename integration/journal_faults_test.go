package integration

import (
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// 20 hooks at once, each after a Write of its own file: every change is
// in HEAD's tree, and the repository is sound.
func TestJournalConcurrentHooks(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	const n = 20
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := 0; i < n; i++ {
		p := filepath.Join(mem, "reference", fmt.Sprintf("note-%02d.md", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(i int, p string) {
			defer wg.Done()
			run := r
			run.Stdin = writePayload(fmt.Sprintf("sess-%02d", i), p)
			// A deadline no load reaches: what is tested is that every
			// change is committed, not how fast (a hook past its deadline
			// leaves its change to the next commit).
			codes[i] = run.Exec(t, "hook", "post-tool-use", "--timeout", "20s").Code
		}(i, p)
	}
	wg.Wait()
	tree := gitIn(t, mem, "ls-tree", "-r", "--name-only", "HEAD", "reference")
	for i := 0; i < n; i++ {
		if codes[i] != 0 {
			t.Errorf("hook %d exit %d", i, codes[i])
		}
		if !strings.Contains(tree, fmt.Sprintf("reference/note-%02d.md\n", i)) {
			t.Errorf("note-%02d.md not in HEAD:\n%s", i, tree)
		}
	}
	gitIn(t, mem, "fsck", "--no-progress")
	if st := gitIn(t, mem, "status", "--porcelain"); st != "" {
		t.Errorf("left uncommitted:\n%s", st)
	}
}

// kill -9 of a hook and its git at any moment of a commit leaves a
// repository git fsck accepts, and the next commit succeeds with every
// change.
func TestJournalKill9DuringCommit(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	bin := testutil.Binary(t)
	rng := rand.New(rand.NewSource(1))
	const rounds = 15
	for i := 0; i < rounds; i++ {
		p := filepath.Join(mem, fmt.Sprintf("killed-%02d.md", i))
		os.WriteFile(p, []byte(fmt.Sprintf("round %d\n", i)), 0o644)
		cmd := exec.Command(bin, "hook", "post-tool-use", "--timeout", "10s")
		cmd.Env = r.Environ()
		cmd.Stdin = strings.NewReader(writePayload("sess-kill", p))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Intn(40)) * time.Millisecond)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}
	gitIn(t, mem, "fsck", "--no-progress")
	os.WriteFile(filepath.Join(mem, "after.md"), []byte("after\n"), 0o644)
	r.Stdin = writePayload("sess-after", filepath.Join(mem, "after.md"))
	if res := r.Exec(t, "hook", "post-tool-use"); res.Code != 0 || res.Stderr != "" {
		t.Fatalf("hook after the kills: %+v", res)
	}
	gitIn(t, mem, "fsck", "--no-progress")
	tree := gitIn(t, mem, "ls-tree", "--name-only", "HEAD")
	for i := 0; i < rounds; i++ {
		if !strings.Contains(tree, fmt.Sprintf("killed-%02d.md\n", i)) {
			t.Errorf("killed-%02d.md missing from HEAD:\n%s", i, tree)
		}
	}
	if !strings.Contains(tree, "after.md\n") {
		t.Errorf("after.md missing from HEAD")
	}
}

// A memory/.git the journal must not use (a file, a symlink out of the
// home, a corrupt repository) is reported once; memory writes go on.
func TestJournalBadRepository(t *testing.T) {
	cases := map[string]func(t *testing.T, mem string){
		"file": func(t *testing.T, mem string) {
			os.RemoveAll(filepath.Join(mem, ".git"))
			os.WriteFile(filepath.Join(mem, ".git"), []byte("gitdir: /elsewhere/.git\n"), 0o644)
		},
		"symlink out of the home": func(t *testing.T, mem string) {
			out := t.TempDir()
			gitIn(t, out, "init", "-q")
			os.RemoveAll(filepath.Join(mem, ".git"))
			os.Symlink(filepath.Join(out, ".git"), filepath.Join(mem, ".git"))
		},
		"corrupt": func(t *testing.T, mem string) {
			os.WriteFile(filepath.Join(mem, ".git", "HEAD"), []byte("garbage\n"), 0o644)
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			zylos, r := journalHome(t)
			mem := filepath.Join(zylos, "memory")
			damage(t, mem)
			core := filepath.Join(mem, "core.md")
			for i := 0; i < 2; i++ {
				os.WriteFile(core, []byte(fmt.Sprintf("# Core Memory\n\nedit %d\n", i)), 0o644)
				r.Stdin = writePayload("sess-bad", core)
				res := r.Exec(t, "hook", "post-tool-use")
				told := strings.Count(res.Stderr, "journal:")
				if res.Code != 0 || res.Stdout != "" || told != 1-i {
					t.Errorf("hook %d: exit %d, told %d times\n%s%s", i, res.Code, told, res.Stdout, res.Stderr)
				}
			}
			if data, _ := os.ReadFile(core); string(data) != "# Core Memory\n\nedit 1\n" {
				t.Errorf("write lost: %q", data)
			}
			r.Stdin = ""
			res := r.Exec(t, "doctor")
			if !strings.Contains(res.Stdout, "warn  journal: ") || !strings.Contains(res.Stdout, "(memory writes go on)") {
				t.Errorf("doctor:\n%s", res.Stdout)
			}
		})
	}
}

// With the memory service running, an edit in an editor is in history
// within seconds, as an external edit.
func TestJournalServicePicksUpExternalEdit(t *testing.T) {
	// On the wall clock, so that no task is due when the service starts.
	zylos := filepath.Join(t.TempDir(), "zylos")
	r := testutil.Run{ZylosDir: zylos, Env: realClock}
	if res := r.Exec(t, "init"); res.Code != 0 {
		t.Fatalf("init: %+v", res)
	}
	startDaemonEnv(t, zylos, realClock)
	p := filepath.Join(zylos, "memory", "reference", "projects.md")
	data, _ := os.ReadFile(p)
	os.WriteFile(p, append(data, "\n### Editor\n- **Status:** active\n- **Updated:** 2026-03-15\n- **Notes:** typed in vim\n"...), 0o644)
	deadline := time.Now().Add(10 * time.Second)
	for {
		res := r.Exec(t, "history", "--limit", "1", "memory/reference/projects.md")
		if strings.Contains(res.Stdout, " external  external edit: update reference/projects.md") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not in history after 10 s:\n%s", res.Stdout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// init --journal=false turns the journal off and doctor says so; on
// again, the next write is committed.
func TestJournalOff(t *testing.T) {
	zylos, r := journalHome(t)
	mem := filepath.Join(zylos, "memory")
	res := r.Exec(t, "init", "--journal=false")
	if res.Code != 0 || !strings.HasSuffix(res.Stdout, "memory journal: off (init --journal=true turns it on)\n") {
		t.Fatalf("init --journal=false: %+v", res)
	}
	head := gitIn(t, mem, "rev-parse", "HEAD")
	core := filepath.Join(mem, "core.md")
	os.WriteFile(core, []byte("# Core Memory\n"), 0o644)
	r.Stdin = writePayload("s", core)
	if res := r.Exec(t, "hook", "post-tool-use"); res.Code != 0 || res.Stdout != "" {
		t.Fatalf("hook: %+v", res)
	}
	r.Stdin = ""
	if gitIn(t, mem, "rev-parse", "HEAD") != head {
		t.Error("committed with the journal off")
	}
	if res := r.Exec(t, "doctor"); !strings.Contains(res.Stdout, "warn  journal: off: changes to memory are not kept") {
		t.Errorf("doctor:\n%s", res.Stdout)
	}
	r.Exec(t, "init", "--journal=true")
	if got := gitIn(t, mem, "log", "-1", "--format=%s"); got != "init: update core.md\n" {
		t.Errorf("after turning it on: %q", got)
	}
}

// A remote: `journal remote set` pushes, the service pushes later changes
// within a minute, doctor tells how far behind, and init --from makes a
// new home with the memory, records and history.
func TestJournalRemote(t *testing.T) {
	zylos, r := journalHome(t)
	bare := filepath.Join(t.TempDir(), "memory.git")
	gitIn(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
	res := r.Exec(t, "journal", "remote", "set", bare)
	if res.Code != 0 || res.Stdout != "journal remote: "+bare+"\npushed\n" {
		t.Fatalf("remote set: %+v", res)
	}
	mem := filepath.Join(zylos, "memory")
	os.WriteFile(filepath.Join(mem, "reference", "projects.md"), []byte("# Projects\n\nmoved on\n"), 0o644)
	r.Exec(t, "rotate") // commits the edit as external
	if res := r.Exec(t, "doctor"); !strings.Contains(res.Stdout, "warn  journal remote: "+bare+": 1 commit behind") {
		t.Errorf("doctor before the push:\n%s", res.Stdout)
	}
	startDaemonEnv(t, zylos, realClock)
	deadline := time.Now().Add(60 * time.Second)
	for gitIn(t, bare, "rev-parse", "HEAD") != gitIn(t, mem, "rev-parse", "HEAD") {
		if time.Now().After(deadline) {
			t.Fatal("the service did not push within a minute")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if res := r.Exec(t, "doctor"); !strings.Contains(res.Stdout, "ok    journal remote: "+bare+": up to date") {
		t.Errorf("doctor after the push:\n%s", res.Stdout)
	}
	other := filepath.Join(t.TempDir(), "zylos")
	r2 := testutil.Run{ZylosDir: other}
	res = r2.Exec(t, "init", "--from", bare)
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "cloned memory/ from "+bare+"\n") {
		t.Fatalf("init --from: %+v", res)
	}
	if data, _ := os.ReadFile(filepath.Join(other, "memory", "reference", "projects.md")); string(data) != "# Projects\n\nmoved on\n" {
		t.Errorf("projects.md in the new home: %q", data)
	}
	if a, b := gitIn(t, mem, "log", "--format=%H %s"), gitIn(t, filepath.Join(other, "memory"), "log", "--format=%H %s"); a != b {
		t.Errorf("history differs:\n%s\n%s", a, b)
	}
	if res := r2.Exec(t, "search", "moved"); res.Code != 0 || !strings.Contains(res.Stdout, "projects.md") {
		t.Errorf("search in the new home: %+v", res)
	}
}

// The journal goes off the machine over the git protocol too: a git
// daemon on the loopback takes the push, and a new home is made from it.
func TestJournalRemoteOverGitDaemon(t *testing.T) {
	if err := exec.Command("git", "daemon", "-h").Run(); err != nil && !strings.Contains(err.Error(), "exit status 129") {
		t.Skipf("git daemon: %v", err)
	}
	zylos, r := journalHome(t)
	base := t.TempDir()
	gitIn(t, base, "init", "-q", "--bare", filepath.Join(base, "memory.git"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	daemon := exec.Command("git", "daemon", "--reuseaddr", "--base-path="+base, "--export-all", "--enable=receive-pack",
		"--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), base)
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { daemon.Process.Kill(); daemon.Wait() })
	url := fmt.Sprintf("git://127.0.0.1:%d/memory.git", port)
	for deadline := time.Now().Add(10 * time.Second); exec.Command("git", "ls-remote", url).Run() != nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("git daemon did not come up")
		}
	}
	if res := r.Exec(t, "journal", "remote", "set", url); res.Code != 0 || res.Stdout != "journal remote: "+url+"\npushed\n" {
		t.Fatalf("remote set: %+v", res)
	}
	other := filepath.Join(t.TempDir(), "zylos")
	if res := (testutil.Run{ZylosDir: other}).Exec(t, "init", "--from", url); res.Code != 0 {
		t.Fatalf("init --from: %+v", res)
	}
	if a, b := gitIn(t, filepath.Join(zylos, "memory"), "rev-parse", "HEAD"), gitIn(t, filepath.Join(other, "memory"), "rev-parse", "HEAD"); a != b {
		t.Errorf("the new home's journal is at %s, the pushed one at %s", b, a)
	}
}
