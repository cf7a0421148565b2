package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// raceHome is an initialised home with two decision records, alpha and
// beta, shown in memory/reference/decisions.md.
type raceHome struct {
	*recHome
	decisions string // memory/reference/decisions.md
}

func newRaceHome(t *testing.T) *raceHome {
	t.Helper()
	h := &raceHome{recHome: newRecHome(t)}
	if res := h.run(nil, "init"); res.Code != 0 {
		t.Fatalf("init: %s%s", res.Stdout, res.Stderr)
	}
	h.decisions = filepath.Join(h.zylos, "memory", "reference", "decisions.md")
	for _, r := range []struct{ slug, title, context string }{{"alpha", "Alpha", "alpha context"}, {"beta", "Beta", "beta context"}} {
		in := h.stage("create-"+r.slug+".json", `{"title":"`+r.title+`","tags":["t"],
 "content":{"status":"accepted","context":"`+r.context+`","decision":"d","rationale":["r"]}}`)
		res := h.run(nil, "records", "write", "--action", "create", "--category", "decision",
			"--target", "memory/records/decisions/"+r.slug+".json", "--input", in)
		if res.Code != 0 {
			t.Fatalf("create %s: %s%s", r.slug, res.Stdout, res.Stderr)
		}
	}
	return h
}

// startPaused starts the binary with args, held at point (just before or
// just after it swaps a rewritten reference file into place), and waits
// until it is there.
func (h *raceHome) startPaused(point string, args ...string) (cmd *exec.Cmd, out *bytes.Buffer, resume func() string) {
	h.t.Helper()
	pause := h.t.TempDir()
	cmd = exec.Command(testutil.Binary(h.t), args...)
	cmd.Dir = h.zylos
	cmd.Env = testutil.Run{ZylosDir: h.zylos, Env: []string{crashpoint.PauseEnv + "=" + point + "@" + pause}}.Environ()
	out = &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	must(h.t, cmd.Start())
	waitFor(h.t, filepath.Join(pause, "reached"))
	return cmd, out, func() string {
		must(h.t, os.WriteFile(filepath.Join(pause, "resume"), nil, 0o644))
		if err := cmd.Wait(); err != nil {
			h.t.Fatalf("zylos-memory %v: %v\n%s", args, err, out)
		}
		return out.String()
	}
}

func waitFor(t *testing.T, path string) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

// context is the Context field of the record at memory/records/decisions/slug.json.
func (h *raceHome) context(slug string) string {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.root, "decisions", slug+".json"))
	must(h.t, err)
	var d struct {
		Content struct {
			Context string `json:"context"`
		} `json:"content"`
	}
	must(h.t, json.Unmarshal(data, &d))
	return d.Content.Context
}

// updateBeta stages an update of beta's context.
func (h *raceHome) updateBeta(context string) []string {
	in := h.edit("memory/records/decisions/beta.json", func(d map[string]any) {
		d["content"].(map[string]any)["context"] = context
		withChange(d)
	})
	return []string{"records", "write", "--action", "update", "--target", "memory/records/decisions/beta.json", "--input", in}
}

// An editor saving decisions.md while records write is about to swap its
// rewrite of that file into place: the hand edit survives and the write
// is applied, whether the editor saves by a rename (sed -i), writes the
// file in place by name (as Node's writeFileSync), or opened the file
// before the write read it and writes into it after the swap.
func TestRewriteKeepsEditLandingBeforeSwap(t *testing.T) {
	type editor struct {
		point string // where the write is held while the editor saves
		edit  func(h *raceHome, resume func() string) string
	}
	editors := map[string]editor{
		"rename, edit in the middle": {"rewrite-before-swap", func(h *raceHome, resume func() string) string {
			sed(t, "s/alpha context/alpha context edited by hand/", h.decisions)
			return resume()
		}},
		"rename, entry appended": {"rewrite-before-swap", func(h *raceHome, resume func() string) string {
			sed(t, "$a\\\n\\\n### [2026-03-02] Gamma\\\n- **Decision:** typed\\\n- **Context:** gamma by hand\\\n- **Status:** active", h.decisions)
			return resume()
		}},
		"in place by name, edit in the middle": {"rewrite-before-swap", func(h *raceHome, resume func() string) string {
			// Node reads the file, then opens it to truncate and
			// write: that open waits on the write's lease.
			read := filepath.Join(t.TempDir(), "read")
			ed := exec.Command("node", "-e", `
const fs = require("fs");
const [path, old, nu, read] = process.argv.slice(1);
const text = fs.readFileSync(path, "utf8");
fs.writeFileSync(read, "");
fs.writeFileSync(path, text.replace(old, nu));
`, h.decisions, "alpha context", "alpha context edited by hand", read)
			ed.Stderr = os.Stderr
			must(t, ed.Start())
			waitFor(t, read)
			time.Sleep(300 * time.Millisecond) // node reaches its open
			out := resume()
			must(t, ed.Wait())
			return out
		}},
	}
	editors["in place through a descriptor opened before the read"] = editor{"rewrite-after-swap", nil}
	for name, e := range editors {
		t.Run(name, func(t *testing.T) {
			h := newRaceHome(t)
			var cmd *exec.Cmd
			var out string
			if e.edit != nil {
				var resume func() string
				cmd, _, resume = h.startPaused(e.point, h.updateBeta("beta context updated")...)
				out = e.edit(h, resume)
			} else {
				cmd, out = h.writeUnderOpenEditor(h.updateBeta("beta context updated"))
			}
			if cmd.ProcessState.ExitCode() != 0 {
				t.Fatalf("records write: exit %d\n%s", cmd.ProcessState.ExitCode(), out)
			}
			data, err := os.ReadFile(h.decisions)
			must(t, err)
			text := string(data)
			if !strings.Contains(text, "beta context updated") || h.context("beta") != "beta context updated" {
				t.Errorf("the update of beta is not applied:\n%s", text)
			}
			if strings.Contains(name, "appended") {
				if !strings.Contains(text, "gamma by hand") {
					t.Errorf("the hand entry is lost:\n%s", text)
				}
			} else if !strings.Contains(text, "alpha context edited by hand") || h.context("alpha") != "alpha context edited by hand" {
				t.Errorf("the hand edit is lost (record: %q):\n%s", h.context("alpha"), text)
			}
			if strings.Count(text, "- **Context:**") != strings.Count(text, "\n### ") {
				t.Errorf("an entry is malformed:\n%s", text)
			}
			res := h.run(nil, "records", "ingest")
			if res.Code != 0 {
				t.Errorf("ingest after: exit %d: %s%s", res.Code, res.Stdout, res.Stderr)
			}
		})
	}
}

// writeUnderOpenEditor runs records write with args while an editor holds
// decisions.md open for writing from before the write reads it (longer
// than the write waits for it) and writes into it, in place, while the
// write is held just after its swap: into the old file.
func (h *raceHome) writeUnderOpenEditor(args []string) (*exec.Cmd, string) {
	t := h.t
	dir := t.TempDir()
	ed := exec.Command("python3", "-c", `
import os, sys, time
path, old, new, dir = sys.argv[1:]
fd = os.open(path, os.O_RDWR)
text = os.read(fd, 1 << 20).decode()
open(os.path.join(dir, "opened"), "w").close()
while not os.path.exists(os.path.join(dir, "go")):
    time.sleep(0.005)
os.ftruncate(fd, 0)
os.pwrite(fd, text.replace(old, new).encode(), 0)
os.close(fd)
`, h.decisions, "alpha context", "alpha context edited by hand", dir)
	ed.Stderr = os.Stderr
	must(t, ed.Start())
	waitFor(t, filepath.Join(dir, "opened"))
	cmd, _, resume := h.startPaused("rewrite-after-swap", args...)
	must(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o644))
	must(t, ed.Wait())
	return cmd, resume()
}

func sed(t *testing.T, script, path string) {
	t.Helper()
	if out, err := exec.Command("sed", "-i", script, path).CombinedOutput(); err != nil {
		t.Fatalf("sed: %v: %s", err, out)
	}
}

// A same-size edit whose modification time is put back, as cp -p and
// rsync -t leave it, is still taken in by records ingest, and an update
// written after keeps it; the ingest a records write runs first takes it
// in too, so a write from a stale read cannot put the old text back.
func TestIngestSeesEditWithMtimePutBack(t *testing.T) {
	h := newRaceHome(t)
	editKeepingMtime := func(old, new string) {
		t.Helper()
		info, err := os.Stat(h.decisions)
		must(t, err)
		data, err := os.ReadFile(h.decisions)
		must(t, err)
		if len(old) != len(new) || !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%q is not in the file or not the size of %q", old, new)
		}
		must(t, os.WriteFile(h.decisions, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644))
		must(t, os.Chtimes(h.decisions, info.ModTime(), info.ModTime()))
		if after, err := os.Stat(h.decisions); err != nil || !after.ModTime().Equal(info.ModTime()) || after.Size() != info.Size() {
			t.Fatalf("the edit changed the size or the modification time: %v %v", after, err)
		}
	}
	update := func(slug string) testutil.Result {
		in := h.edit("memory/records/decisions/"+slug+".json", func(d map[string]any) {
			d["content"].(map[string]any)["decision"] = "decided again"
			withChange(d)
		})
		return h.run(nil, "records", "write", "--action", "update", "--target", "memory/records/decisions/"+slug+".json", "--input", in)
	}
	if res := h.run(nil, "records", "ingest"); res.Code != 0 || !strings.HasPrefix(res.Stdout, "Nothing to ingest") {
		t.Fatalf("ingest before the edit: exit %d: %s%s", res.Code, res.Stdout, res.Stderr)
	}

	editKeepingMtime("alpha context", "alpha CONTEXT")
	res := h.run(nil, "records", "ingest")
	if res.Code != 0 || !strings.Contains(res.Stdout, "alpha.json") || h.context("alpha") != "alpha CONTEXT" {
		t.Fatalf("ingest after the edit: exit %d: %s%s; record context %q", res.Code, res.Stdout, res.Stderr, h.context("alpha"))
	}
	if res := update("alpha"); res.Code != 0 {
		t.Fatalf("update: exit %d: %s%s", res.Code, res.Stdout, res.Stderr)
	}
	data, err := os.ReadFile(h.decisions)
	must(t, err)
	if !strings.Contains(string(data), "alpha CONTEXT") || !strings.Contains(string(data), "decided again") || h.context("alpha") != "alpha CONTEXT" {
		t.Errorf("the update after the ingest lost the edit (record context %q):\n%s", h.context("alpha"), data)
	}

	// The update is made from the record read before any ingest: it is
	// refused (the record changed under it) rather than written over the
	// edit.
	editKeepingMtime("beta context", "beta CONTEXT")
	res = update("beta")
	data, err = os.ReadFile(h.decisions)
	must(t, err)
	if !strings.Contains(string(data), "beta CONTEXT") || h.context("beta") != "beta CONTEXT" {
		t.Errorf("the write put the old text back (exit %d, record context %q):\n%s", res.Code, h.context("beta"), data)
	}
}
