package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// ingested runs records ingest and returns its result, failing on an
// exit other than want.
func (h memHome) ingest(want int) (stdout, stderr string) {
	h.t.Helper()
	res := h.run(nil, "records", "ingest")
	if res.Code != want {
		h.t.Fatalf("ingest: want exit %d: %s", want, resultText(res))
	}
	return res.Stdout, res.Stderr
}

func TestIngestBadInput(t *testing.T) {
	t.Run("malformed entry", func(t *testing.T) {
		h := newMemHome(t)
		h.write(decisionsMD, "# D\n\n### [2026-13-45] Bad date\n- **Decision:** x\n- **Status:** active\n"+handDecision)
		out, errs := h.ingest(1)
		if errs != "zylos-memory: records ingest: memory/reference/decisions.md:3 \"Bad date\": invalid heading date \"2026-13-45\" (want YYYY-MM-DD) (left alone)\n" {
			t.Fatalf("stderr: %q", errs)
		}
		if !strings.Contains(out, "created "+sqliteRec) || !strings.Contains(h.read(decisionsMD), "### [2026-13-45] Bad date\n- **Decision:** x\n") {
			t.Fatalf("the good entry is not ingested or the bad one changed: %s\n%s", out, h.read(decisionsMD))
		}
		// Ingested again, from the stamp and in full: nothing changes,
		// and the output does not say all agrees.
		for _, full := range []bool{false, true} {
			if full {
				os.Remove(h.path("memory/.state/bridge-ingest.cache"))
			}
			if out, _ := h.ingest(1); out != "Nothing ingested: 1 problem to mend, listed on stderr.\n" {
				t.Fatalf("ingest again (full %v): %q", full, out)
			}
		}
	})
	t.Run("entry moved between files", func(t *testing.T) {
		h := newMemHome(t)
		h.write(decisionsMD, "# D\n"+handDecision)
		h.ingest(0)
		moved := h.read(decisionsMD)
		h.write(decisionsMD, "# D\n")
		h.write("memory/reference/decisions-infra.md", moved)
		out, _ := h.ingest(0)
		if !strings.Contains(out, "moved "+sqliteRec) {
			t.Fatalf("ingest: %s", out)
		}
		rec := h.record(sqliteRec)
		if rec["record_status"] != "active" {
			t.Fatalf("record after the move: %v", rec["record_status"])
		}
		// A restore after a retire goes back to the file it was last in.
		h.must(h.run(nil, "records", "write", "--action", "retire", "--target", sqliteRec), "retire")
		h.must(h.run(nil, "records", "write", "--action", "restore", "--target", sqliteRec), "restore")
		if !strings.Contains(h.read("memory/reference/decisions-infra.md"), "<!-- id: use-sqlite-for-c4 -->") {
			t.Fatalf("restored elsewhere:\n%s", h.read(decisionsMD))
		}
	})
	for _, c := range []struct {
		name, problem string
		spoil         func(h memHome)
	}{
		{"file replaced by a directory", "not a regular file", func(h memHome) {
			os.Remove(h.path(decisionsMD))
			os.Mkdir(h.path(decisionsMD), 0o755)
		}},
		{"symlink out of the home", "not a regular file", func(h memHome) {
			outside := filepath.Join(t.TempDir(), "elsewhere.md")
			os.WriteFile(outside, []byte("# Elsewhere\n"), 0o644)
			os.Remove(h.path(decisionsMD))
			os.Symlink(outside, h.path(decisionsMD))
		}},
		{"50 MB file", "files over 4194304 bytes are not parsed", func(h memHome) {
			h.write(decisionsMD, h.read(decisionsMD)+strings.Repeat("filler line of prose\n", 50<<20/21))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newMemHome(t)
			h.write(decisionsMD, "# D\n"+handDecision)
			h.ingest(0)
			c.spoil(h)
			out, errs := h.ingest(1)
			if out != "Nothing ingested: 1 problem to mend, listed on stderr.\n" {
				t.Fatalf("stdout: %q", out)
			}
			if !strings.Contains(errs, "memory/reference/decisions.md:1: ") || !strings.Contains(errs, c.problem) || strings.Count(errs, "\n") != 1 {
				t.Fatalf("stderr: %q", errs)
			}
			if rec := h.record(sqliteRec); rec["record_status"] != "active" {
				t.Fatalf("a record of the unreadable file was %v", rec["record_status"])
			}
		})
	}
	t.Run("invalid UTF-8", func(t *testing.T) {
		h := newMemHome(t)
		bad := strings.Replace(handDecision, "WAL mode", "WAL \xff mode", 1)
		h.write(decisionsMD, "# D\n"+bad)
		_, errs := h.ingest(1)
		if !strings.Contains(errs, `"Use SQLite for C4": invalid UTF-8 (left alone)`) {
			t.Fatalf("stderr: %q", errs)
		}
		if !bytes.Contains([]byte(h.read(decisionsMD)), []byte("\xff")) {
			t.Fatal("the file changed")
		}
	})
	t.Run("bad flags", func(t *testing.T) {
		h := newMemHome(t)
		if res := h.run(nil, "records", "ingest", "extra"); res.Code != 2 || !strings.Contains(res.Stderr, `unexpected argument "extra"`) {
			t.Fatalf("%s", resultText(res))
		}
		if res := h.run([]string{fmt.Sprintf("ZYLOS_DIR=%s", t.TempDir())}, "records", "ingest"); res.Code != 1 || !strings.Contains(res.Stderr, "no memory directory") {
			t.Fatalf("%s", resultText(res))
		}
	})
}

// TestWriteRefusesAnUnwritableIndexFirst: with index.md a directory, a
// records write (or an ingest) would fail on the index after it had
// stored the record and written its entry; it is refused before
// anything changes.
func TestWriteRefusesAnUnwritableIndexFirst(t *testing.T) {
	h := newMemHome(t)
	h.write(decisionsMD, "# D\n"+handDecision)
	h.ingest(0)
	index := h.path("memory/records/index.md")
	os.Remove(index)
	os.Mkdir(index, 0o755)
	h.write(decisionsMD, h.read(decisionsMD)+redisDecision)
	in := h.stage("new.json", `{"title":"New one","tags":["t"],"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`)
	before := testutil.Tree(t, h.path("memory"))
	refused := "zylos-memory: " + index + ": a directory, not a regular file; refusing to open it; nothing changed\n"
	for _, args := range [][]string{
		{"records", "write", "--action", "create", "--category", "decision", "--target", "memory/records/decisions/new-one.json", "--input", in},
		{"records", "write", "--action", "retire", "--target", sqliteRec},
		{"records", "ingest"},
	} {
		res := h.run(nil, args...)
		if res.Code != 1 || res.Stdout != "" || res.Stderr != refused {
			t.Fatalf("%v: %s", args, resultText(res))
		}
		if now := testutil.Tree(t, h.path("memory")); now != before {
			t.Fatalf("%v changed files:\n%s", args, testutil.Diff(before, now))
		}
	}
}
