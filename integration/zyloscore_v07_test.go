package integration

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestZylosCoreV07SessionStart runs zylos-core v0.7.1's own
// session-start-inject.js and c4-session-init.js, installed in the home's
// .claude/skills as zylos installs them, beside the binary on generated
// v0.7 trees: the outputs must be the same bytes.
func TestZylosCoreV07SessionStart(t *testing.T) {
	trees := []struct {
		name                        string
		identity, state, references string
		convs                       int
		summary                     string
	}{
		{"all files, few conversations", sampleIdentity, sampleState, sampleReferences, 3, "Decisions: ship it."},
		{"missing references, over threshold", sampleIdentity, sampleState, "", 16, "initial"},
		{"empty state, no summary", sampleIdentity, "\n\n", sampleReferences, 15, ""},
		{"no conversations", "\ufeff# Identity  \r\n\r\nCRLF and a BOM\r\n", sampleState, sampleReferences, 0, "initial"},
	}
	for _, tt := range trees {
		t.Run(tt.name, func(t *testing.T) {
			dir := v07Tree(t, tt.identity, tt.state, tt.references)
			node := newNodeSkills(t, coreV071, filepath.Join(dir, ".claude", "skills"))
			r := testutil.Run{ZylosDir: dir}
			r.Exec(t, "c4", "init")
			db := rawDB(t, filepath.Join(dir, "comm-bridge", "c4.db"))
			var s any = tt.summary
			if tt.summary == "" {
				s = nil
			}
			mustExec(t, db, `UPDATE checkpoints SET summary = ?, timestamp = '2026-03-01 00:00:00'`, s)
			insertConvs(t, db, numbered(tt.convs))
			db.Close()
			for _, c := range []struct {
				script string
				cmd    []string
			}{
				{"zylos-memory/session-start-inject.js", args("inject")},
				{"c4-session-init.js", args("c4 session-init")},
			} {
				nodeOut, nodeErr, nodeCode := node.run(t, dir, c.script)
				res := r.Exec(t, c.cmd...)
				if nodeOut != res.Stdout || nodeCode != res.Code {
					t.Errorf("%v differs from %s (node stderr %q):\n%s", c.cmd, c.script, nodeErr, testutil.Diff(nodeOut, res.Stdout))
				}
			}
		})
	}
}

// TestZylosCoreV07Reports runs v0.7.1's memory-status.js, consolidate.js and
// rotate-session.js beside the binary on generated v0.7 trees (the real
// clock for both; the report's own timestamp is left out of the comparison).
func TestZylosCoreV07Reports(t *testing.T) {
	line := strings.Repeat("y", 79) + "\n"
	trees := []struct {
		name                        string
		identity, state, references string
	}{
		{"over and near budget", "# Identity\n" + strings.Repeat(line, 230), "# Active State\n" + strings.Repeat(line, 150), ""},
		{"within budget", sampleIdentity, sampleState, "# References\n" + strings.Repeat(line, 105)},
		{"at the warning size", sampleIdentity, strings.Repeat("z", 10*1024), strings.Repeat("r", 16*1024+1)},
	}
	for _, tt := range trees {
		t.Run(tt.name, func(t *testing.T) {
			dir := v07Tree(t, tt.identity, tt.state, tt.references)
			old := time.Now().AddDate(0, 0, -45)
			for _, rel := range []string{"memory/sessions/2026-01-02.md", "memory/sessions/2026-01-02-1.md", "memory/sessions/notes.md"} {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				os.WriteFile(p, []byte("# Session Log: 2026-01-02\n"), 0o644)
			}
			for i, rel := range []string{"memory/reference/decisions.md", "memory/reference/projects.md", "memory/identity.md"} {
				stamp := old.AddDate(0, 0, 20*i)
				os.Chtimes(filepath.Join(dir, filepath.FromSlash(rel)), stamp, stamp)
			}
			os.WriteFile(filepath.Join(dir, "memory", "sessions", "current.md"), []byte("# Session Log: 2026-01-03\n\n**09:00** - x\n"), 0o644)
			twin := filepath.Join(t.TempDir(), "zylos")
			copyTree(t, dir, twin)
			node := newNodeSkills(t, coreV071, filepath.Join(t.TempDir(), "skills"))
			r := testutil.Run{ZylosDir: dir, Env: []string{"ZYLOS_MEMORY_NOW="}}
			for _, c := range []struct {
				script string
				cmd    []string
			}{
				{"zylos-memory/memory-status.js", args("memory-status")},
				{"zylos-memory/consolidate.js", args("consolidate")},
			} {
				nodeOut, nodeErr, nodeCode := node.run(t, dir, c.script)
				res := r.Exec(t, c.cmd...)
				if dropTimestamp(nodeOut) != dropTimestamp(res.Stdout) || nodeCode != res.Code {
					t.Errorf("%v differs from %s (node stderr %q):\n%s", c.cmd, c.script, nodeErr,
						testutil.Diff(dropTimestamp(nodeOut), dropTimestamp(res.Stdout)))
				}
			}
			nodeOut, _, _ := node.run(t, twin, "zylos-memory/rotate-session.js")
			res := r.Exec(t, "rotate")
			if nodeOut != res.Stdout {
				t.Errorf("rotate differs from rotate-session.js:\n%s", testutil.Diff(nodeOut, res.Stdout))
			}
			for _, p := range []string{"memory/sessions/2026-01-03.md", "memory/sessions/current.md"} {
				a, _ := os.ReadFile(filepath.Join(twin, p))
				b, _ := os.ReadFile(filepath.Join(dir, p))
				if string(a) != string(b) {
					t.Errorf("%s: node left %q, the binary %q", p, a, b)
				}
			}
		})
	}
}

// dropTimestamp removes the report's "timestamp" line, the one field that
// depends on the moment each program ran.
func dropTimestamp(s string) string {
	lines := strings.Split(s, "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, `  "timestamp": `) }), "\n")
}

// copyTree copies the regular files under src to dst, keeping their times.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		os.MkdirAll(filepath.Dir(target), 0o755)
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		info, _ := d.Info()
		return os.Chtimes(target, info.ModTime(), info.ModTime())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestZylosCoreV07Templates: a home seeded with v0.7.1's own templates and
// its skill's example entries is a v0.7 home to every command, and
// consolidation parses its entries without calling any malformed (its
// projects.md has a planning project, an "(not yet)" Updated and a table).
func TestZylosCoreV07Templates(t *testing.T) {
	repo := zylosCore(t, coreV071)
	root := extractCore(t, repo, coreV071, "templates/memory", "skills/zylos-memory/examples")
	dir := filepath.Join(t.TempDir(), "zylos")
	if err := os.Rename(filepath.Join(root, "templates", "memory"), filepath.Join(dir+"-memory")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(dir, 0o755)
	os.Rename(dir+"-memory", filepath.Join(dir, "memory"))
	for _, name := range []string{"decisions", "projects", "preferences", "ideas"} {
		data, err := os.ReadFile(filepath.Join(root, "skills", "zylos-memory", "examples", name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "memory", "reference", name+"-examples.md"), data, 0o644)
	}
	r := testutil.Run{ZylosDir: dir}
	res := r.Exec(t, "consolidate", "--entries")
	if res.Code != 0 || !strings.Contains(res.Stdout, `"malformed": []`) || !strings.Contains(res.Stdout, `"memoryDir"`) {
		t.Errorf("consolidate --entries on v0.7.1's templates: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if res := r.Exec(t, "init"); res.Code != 0 {
		t.Fatal(res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "memory", "core.md")); !os.IsNotExist(err) {
		t.Error("init seeded a core.md into v0.7.1's home")
	}
}
