package integration

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// Rotations while another process appends lines to current.md with >>
// (as the session hooks do) keep every line in exactly one log.
func TestRotateKeepsLinesOfConcurrentAppender(t *testing.T) {
	home := filepath.Join(t.TempDir(), "zylos")
	tree{"memory/sessions/current.md": "# Session Log: 2026-03-01\n\n"}.build(t, home)
	sessions := filepath.Join(home, "memory", "sessions")
	stop := filepath.Join(t.TempDir(), "stop")
	// The appender runs until the rotations are over and says how many
	// lines it wrote.
	appender := exec.Command("sh", "-c",
		`i=0; while [ ! -e "$2" ]; do i=$((i+1)); echo "- l$i" >>"$1"; done; echo $i`,
		"sh", filepath.Join(sessions, "current.md"), stop)
	var count strings.Builder
	appender.Stdout = &count
	must(t, appender.Start())
	for day := 2; day <= 28; day++ {
		env := []string{fmt.Sprintf("ZYLOS_MEMORY_NOW=2026-03-%02dT00:00:01Z", day)}
		if res := (testutil.Run{ZylosDir: home, Env: env}).Exec(t, "rotate"); res.Code != 0 {
			t.Fatalf("rotate: exit %d: %s", res.Code, res.Stderr)
		}
	}
	must(t, os.WriteFile(stop, nil, 0o644))
	must(t, appender.Wait())
	lines, err := strconv.Atoi(strings.TrimSpace(count.String()))
	must(t, err)
	seen := map[string]int{}
	var logs []string
	logs, err = filepath.Glob(filepath.Join(sessions, "*.md"))
	must(t, err)
	for _, log := range logs {
		data, err := os.ReadFile(log)
		must(t, err)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "- l") {
				seen[line]++
			}
		}
	}
	lost, doubled := 0, 0
	for i := 1; i <= lines; i++ {
		switch seen[fmt.Sprintf("- l%d", i)] {
		case 0:
			lost++
		case 1:
		default:
			doubled++
		}
	}
	if lost+doubled > 0 || len(seen) != lines {
		t.Errorf("of %d appended lines %d are lost, %d in two logs, %d logged lines in all", lines, lost, doubled, len(seen))
	}
	if len(logs) < 3 {
		t.Errorf("only %d logs: the rotations did not overlap the appender", len(logs))
	}
}

// A record keeps taking content updates past the changes[] cap of 50: the
// automatic change entry counts as new before the cap drops the oldest.
func TestRecordUpdatesPastChangesCap(t *testing.T) {
	h := newRecHome(t)
	res := h.run(nil, "records", "write", "--action", "create", "--category", "decision", "--target", recJWT,
		"--input", h.stage("in.json", recDecision))
	if res.Code != 0 {
		t.Fatalf("create: exit %d: %s%s", res.Code, res.Stdout, res.Stderr)
	}
	for i := 1; i <= 60; i++ {
		context := fmt.Sprintf("context %d", i)
		in := h.edit(recJWT, func(d map[string]any) {
			d["content"].(map[string]any)["context"] = context
			if i%2 == 0 {
				withChange(d)
			}
		})
		res := h.run(nil, "records", "write", "--action", "update", "--target", recJWT, "--hash", h.hash(recJWT), "--input", in)
		if res.Code != 0 {
			t.Fatalf("update %d: exit %d: %s%s", i, res.Code, res.Stdout, res.Stderr)
		}
	}
	var d struct {
		Content      map[string]any
		Changes      []map[string]any
		TimesUpdated int `json:"times_updated"`
	}
	data, err := os.ReadFile(filepath.Join(h.zylos, recJWT))
	must(t, err)
	must(t, json.Unmarshal(data, &d))
	if d.Content["context"] != "context 60" || len(d.Changes) != 50 || d.TimesUpdated != 60 {
		t.Errorf("context %q, %d changes, times_updated %d; want context 60, 50, 60", d.Content["context"], len(d.Changes), d.TimesUpdated)
	}
	if last := d.Changes[len(d.Changes)-1]; last["summary"] != "Updated content.context" || last["new_value"] != "context 60" {
		t.Errorf("newest change = %v", last)
	}
}

// consolidate --apply runs while another process appends decisions to
// decisions.md: each appended decision ends up exactly once in the
// reference file or the archive, none lost between the read and the
// rewrite.
func TestConsolidateApplyKeepsConcurrentAppends(t *testing.T) {
	home := crashHome(t)
	decisions := filepath.Join(home, "memory", "reference", "decisions.md")
	stop := filepath.Join(t.TempDir(), "stop")
	appender := exec.Command("sh", "-c",
		`i=0; while [ ! -e "$2" ]; do i=$((i+1)); printf '### [2025-02-01] Appended %d\n- **Decision:** x\n- **Status:** superseded\n\n' $i >>"$1"; sleep 0.001; done; echo $i`,
		"sh", decisions, stop)
	var count strings.Builder
	appender.Stdout = &count
	must(t, appender.Start())
	const runs = 15
	applied := 0
	for run := 0; run < runs; run++ {
		if res := (testutil.Run{ZylosDir: home}).Exec(t, "consolidate", "--apply"); res.Code == 0 {
			applied++
		}
	}
	must(t, os.WriteFile(stop, nil, 0o644))
	must(t, appender.Wait())
	if applied != runs {
		// Lines appended meanwhile are carried over, not a reason to refuse.
		t.Errorf("%d of %d runs of consolidate --apply refused to apply while the appender ran", runs-applied, runs)
	}
	if res := (testutil.Run{ZylosDir: home}).Exec(t, "consolidate", "--apply"); res.Code != 0 {
		t.Fatalf("final run: %s", resultText(res))
	}
	checkEachOnce(t, filepath.Join(home, "memory"))
	appended, err := strconv.Atoi(strings.TrimSpace(count.String()))
	must(t, err)
	var text strings.Builder
	for _, pattern := range []string{"reference/*.md", "archive/*.md"} {
		files, _ := filepath.Glob(filepath.Join(home, "memory", pattern))
		for _, f := range files {
			data, _ := os.ReadFile(f)
			text.Write(data)
		}
	}
	// A line that reached the old file after its last read is in the
	// backup, which is a hard link to it: kept, though not carried.
	var backups strings.Builder
	filepath.WalkDir(filepath.Join(home, "memory", ".state", "backups"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			backups.Write(data)
		}
		return nil
	})
	lost, doubled := 0, 0
	for i := 1; i <= appended; i++ {
		line := fmt.Sprintf("] Appended %d\n", i)
		switch strings.Count(text.String(), line) {
		case 0:
			if strings.Contains(backups.String(), line) {
				t.Logf("%q is only in a backup", line)
				continue
			}
			lost++
		case 1:
		default:
			doubled++
		}
	}
	if lost+doubled > 0 {
		t.Errorf("of %d appended decisions %d are lost, %d twice (%d of %d runs applied)", appended, lost, doubled, applied, runs)
	}
	t.Logf("%d appended decisions, %d of %d runs applied", appended, applied, runs)
}

// On a home made by init (which registers the scheduled tasks) the Node
// name memory-status prints memory-status.js's report and nothing else;
// status adds the scheduler section after it.
func TestMemoryStatusExactOnInitHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "zylos")
	run := testutil.Run{ZylosDir: home}
	if res := run.Exec(t, "init"); res.Code != 0 {
		t.Fatalf("init: %s", resultText(res))
	}
	alias, status := run.Exec(t, "memory-status"), run.Exec(t, "status")
	if alias.Code != 0 || status.Code != 0 || alias.Stderr != "" {
		t.Fatalf("memory-status: %s\nstatus: %s", resultText(alias), resultText(status))
	}
	if strings.Contains(alias.Stdout, "Scheduler") {
		t.Errorf("memory-status prints more than the Node report:\n%s", alias.Stdout)
	}
	if !strings.HasPrefix(status.Stdout, alias.Stdout+"\nScheduler: ") {
		t.Errorf("status is not the Node report followed by the scheduler section:\n%s", status.Stdout)
	}
	if node := newNodeScripts(t); node != nil {
		if want := node.run(t, "memory-status.js", home, nil); want != alias {
			t.Errorf("memory-status differs from memory-status.js (-node +go):\n%s", testutil.Diff(resultText(want), resultText(alias)))
		}
	}
}

// A records write killed with SIGKILL at each point between marking its
// files and clearing the mark leaves nothing the next command does not
// bring in line: index --validate (and any later write) finds record and
// index consistent, for a create and for an update that renames.
func TestRecordsWriteKilledKeepsIndex(t *testing.T) {
	const renamed = "memory/records/decisions/adopt-paseto-tokens-everywhere.json"
	// "atomicfile-before-rename#2": inside the record's own atomic write,
	// its temp file made and not yet renamed (the first is the mark's).
	for _, point := range []string{"records-marked", "atomicfile-before-rename#2", "records-record-written", "records-index-updated"} {
		for _, action := range []string{"create", "rename"} {
			t.Run(action+"/"+point, func(t *testing.T) {
				h := newRecHome(t)
				create := []string{"records", "write", "--action", "create", "--category", "decision", "--target", recJWT,
					"--input", h.stage("in.json", recDecision)}
				write := create
				if action == "rename" {
					if res := h.run(nil, create...); res.Code != 0 {
						t.Fatalf("create: %s", resultText(res))
					}
					write = []string{"records", "write", "--action", "update", "--target", recJWT, "--input",
						h.edit(recJWT, func(d map[string]any) { d["title"] = "Adopt PASETO tokens everywhere"; withChange(d) })}
				}
				killed := h.run([]string{crashpoint.Env + "=" + point}, write...)
				if killed.Code != -1 {
					t.Fatalf("not killed at %s: %s", point, resultText(killed))
				}
				res := h.run(nil, "records", "index", "--validate")
				if res.Code != 0 || res.Stdout != "Index is valid\n" {
					t.Errorf("after kill -9 at %s: %s", point, resultText(res))
				}
				if _, err := os.Stat(filepath.Join(h.root, ".index-pending")); err == nil {
					t.Errorf("the mark outlived the repair")
				}
				// The repair runs under the lock, so a temp file of a marked
				// record is a dead writer's whatever its age.
				if left, _ := filepath.Glob(filepath.Join(h.root, "decisions", ".*.tmp-*")); len(left) > 0 {
					t.Errorf("temp files left after the repair: %v", left)
				}
				other := h.run(nil, "records", "write", "--action", "create", "--category", "decision", "--target",
					"memory/records/decisions/other.json", "--input", h.stage("in.json", recDecision))
				if other.Code != 0 {
					t.Errorf("next write: %s", resultText(other))
				}
				index, _ := os.ReadFile(filepath.Join(h.root, "index.md"))
				for _, rel := range []string{recJWT, renamed} {
					_, err := os.Stat(filepath.Join(h.zylos, rel))
					if inIndex := strings.Contains(string(index), "-> "+rel); inIndex != (err == nil) {
						t.Errorf("%s: file present %v, in index %v:\n%s", rel, err == nil, inIndex, index)
					}
				}
			})
		}
	}
}

// A memory path linked out of the home (the file itself or a directory on
// its way) is refused by every command with one clear line, and nothing
// outside is read into a context or written; the session-start hook fails
// open without the outside content.
func TestMemoryLinkedOutOfHomeRefused(t *testing.T) {
	commands := [][]string{
		{"inject"}, {"rotate"}, {"consolidate"}, {"consolidate", "--apply"}, {"init"},
		{"records", "write", "--action", "create", "--category", "decision", "--target", recJWT, "--input", "/tmp/.memory-write-pending-none.json"},
		{"records", "index", "--rebuild"}, {"scheduler", "list"}, {"status"}, {"sync", "status"},
	}
	for _, linked := range []string{"memory/core.md", "memory/archive", "memory/records", "memory/.state", "memory/sessions", "memory"} {
		t.Run(linked, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "zylos")
			if res := (testutil.Run{ZylosDir: home}).Exec(t, "init"); res.Code != 0 {
				t.Fatalf("init: %s", resultText(res))
			}
			must(t, os.MkdirAll(filepath.Join(home, "memory", "archive"), 0o755))
			must(t, os.MkdirAll(filepath.Join(home, "memory", "records"), 0o755))
			must(t, os.WriteFile(filepath.Join(home, "memory", "sessions", "2025-01-01.md"), []byte("# Session Log: 2025-01-01\n"), 0o644))
			outside := filepath.Join(t.TempDir(), "outside")
			must(t, os.Rename(filepath.Join(home, linked), outside))
			must(t, os.Symlink(outside, filepath.Join(home, linked)))
			if linked == "memory/core.md" {
				must(t, os.WriteFile(outside, []byte("SECRET OUTSIDE\n"), 0o644))
			}
			before := snapshot(t, outside)
			for _, args := range commands {
				res := (testutil.Run{ZylosDir: home}).Exec(t, args...)
				if res.Code == 0 || strings.Count(res.Stderr, "\n") != 1 || !strings.Contains(res.Stderr, "outside the home") {
					t.Errorf("%v: %s", args, resultText(res))
				}
			}
			hook := testutil.Run{ZylosDir: home, Stdin: `{"session_id":"s","hook_event_name":"SessionStart","source":"startup"}`}.Exec(t, "hook", "session-start")
			if hook.Code != 0 || strings.Contains(hook.Stdout, "SECRET") || !strings.Contains(hook.Stderr, "outside the home") {
				t.Errorf("hook session-start: %s", resultText(hook))
			}
			if after := snapshot(t, outside); after != before {
				t.Errorf("outside changed:\n%s\nwas:\n%s", after, before)
			}
		})
	}
}

// A write killed (SIGKILL) between creating its temp file and renaming it
// leaves ".NAME.tmp-N" behind; the next command that writes into that
// directory removes it once it is older than a minute, and leaves a young
// one (a write in progress) and other dot-files alone.
func TestKilledWriteTempsSwept(t *testing.T) {
	h := newRecHome(t)
	sessions := filepath.Join(h.zylos, "memory", "sessions")
	must(t, os.MkdirAll(sessions, 0o755))
	must(t, os.WriteFile(filepath.Join(sessions, "current.md"), []byte("# Session Log: 2026-03-14\n\n"), 0o644))
	crash := []string{crashpoint.Env + "=atomicfile-before-rename"}
	createArgs := []string{"records", "write", "--action", "create", "--category", "decision", "--target", recJWT, "--input", h.stage("in.json", recDecision)}
	for _, step := range []struct {
		args []string
		dir  string
	}{{[]string{"rotate"}, sessions}, {createArgs, h.root}} {
		if res := h.run(crash, step.args...); res.Code != -1 {
			t.Fatalf("%v not killed: %s", step.args, resultText(res))
		}
		left, _ := filepath.Glob(filepath.Join(step.dir, ".*.tmp-*"))
		if len(left) != 1 {
			t.Fatalf("%v left %v, want one temp file", step.args, left)
		}
		old := time.Now().Add(-2 * time.Minute)
		must(t, os.Chtimes(left[0], old, old))
		young := filepath.Join(step.dir, ".young.md.tmp-123")
		keep := filepath.Join(step.dir, ".notes.tmp-draft")
		must(t, os.WriteFile(young, nil, 0o644))
		must(t, os.WriteFile(keep, nil, 0o644))
		must(t, os.Chtimes(keep, old, old))
		if res := h.run(nil, step.args...); res.Code != 0 && !strings.Contains(res.Stdout, "CREATE_ERROR") {
			t.Fatalf("%v rerun: %s", step.args, resultText(res))
		}
		if _, err := os.Stat(left[0]); err == nil {
			t.Errorf("%v: stale %s not swept", step.args, filepath.Base(left[0]))
		}
		for _, p := range []string{young, keep} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%v: %s swept: %v", step.args, filepath.Base(p), err)
			}
		}
	}
}
