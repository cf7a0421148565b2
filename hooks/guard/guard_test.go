package guard

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// tree builds a zylos home with a records root, a plugin-style project
// root, a temp dir and a few symlinks, and returns the options and base.
func tree(t *testing.T) (Options, string) {
	t.Helper()
	base := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(base, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mk("zylos/memory/records/decisions")
	mk("zylos/memory/records/.staging")
	mk("proj/.claude/memory/runbooks")
	mk("tmp")
	mk("elsewhere")
	link := func(target, name string) {
		if err := os.Symlink(filepath.Join(base, target), filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("zylos/memory/records", "into-root")
	link("elsewhere", "zylos/memory/records/decisions/out")
	link("zylos/memory/records/decisions", "tmp/.memory-draft-evil.json")
	return Options{Root: filepath.Join(base, "zylos/memory/records"), Home: base, TempDir: filepath.Join(base, "tmp")}, base
}

func TestGuardAllowDeny(t *testing.T) {
	opts, base := tree(t)
	cases := []struct {
		path string
		deny bool
	}{
		{"zylos/memory/records/decisions/x.json", true},
		{"zylos/memory/records/index.md", true},
		{"zylos/memory/records/new-folder/deep/x.json", true},
		{"zylos/memory/records", true},
		{"zylos/memory/records/.staging/input-decision.json", false},
		{"zylos/memory/records/.staging/.triage-pending.json", false},
		{"zylos/memory/records/memory-config.json", false},
		{"zylos/memory/records/.staging/../decisions/x.json", true},
		{"zylos/memory/other/../records/decisions/x.json", true},
		{"zylos/memory/core.md", false},
		{"into-root/decisions/x.json", true},
		{"zylos/memory/records/decisions/out/x.json", true},
		{"proj/.claude/memory/runbooks/r.json", true},
		{"proj/.claude/memory/new/r.json", true},
		{"proj/.claude/memory/.staging/draft-decision.json", false},
		{"proj/.claude/memory-notes.md", false},
		{"proj/.claude/settings.json", false},
		{"tmp/.memory-write-pending-abc.json", false},
		{"tmp/.memory-triage-context-decision.txt", false},
		{"tmp/.memory-draft-evil.json/x.json", true},
		{"tmp/other.json", false},
		{"~/zylos/memory/records/decisions/y.json", true},
		{"", false},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			p := c.path
			if p != "" && !strings.HasPrefix(p, "~") {
				p = filepath.Join(base, p)
			}
			got := Guard(p, base, opts)
			if (got != nil) != c.deny {
				t.Fatalf("deny = %v, want %v (%+v)", got != nil, c.deny, Classify(p, base, opts))
			}
		})
	}
	// A relative path resolves against the hook's cwd.
	if Guard("decisions/z.json", opts.Root, opts) == nil {
		t.Error("relative path inside the root allowed")
	}
}

func TestGuardAnswerGolden(t *testing.T) {
	opts := Options{Root: "/home/u/zylos/memory/records", TempDir: "/tmp"}
	ans := Guard("/home/u/zylos/memory/records/decisions/x.json", "/", opts)
	js, err := json.MarshalIndent(ans, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "testdata/deny.golden", append(js, '\n'))
}

const validDecision = `{"schema_version":"1.0","category":"decision","id":"use-sqlite","title":"Use SQLite",
"created_at":"2026-03-15T10:30:00Z","updated_at":"2026-03-15T10:30:00Z","tags":["db"],
"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`

func TestCheck(t *testing.T) {
	opts, base := tree(t)
	now := time.Unix(1773570600, 0)
	dec := filepath.Join(opts.Root, "decisions")
	cases := []struct {
		name, file, body string
		blocked, moved   bool
	}{
		{"valid record", "decisions/ok.json", validDecision, false, false},
		{"schema violation", "decisions/bad.json", `{"category":"decision","title":"x"}`, true, true},
		{"wrong folder", "runbooks/x.json", validDecision, true, true},
		{"not JSON", "decisions/garbage.json", "{not json", true, true},
		{"non-JSON file", "notes.md", "# hi", true, false},
		{"unknown folder, valid claim", "misc/ok.json", validDecision, false, false},
		{"unknown folder, no claim", "misc/x.json", `{}`, true, true},
		{"staging file", ".staging/input-1.json", "{broken", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(opts.Root, c.file)
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			rep := Check(path, base, now, opts)
			if (rep.Answer != nil) != c.blocked {
				t.Fatalf("blocked = %v, want %v: %+v", rep.Answer != nil, c.blocked, rep.Answer)
			}
			if (rep.Quarantined != "") != c.moved {
				t.Fatalf("quarantined = %q, want moved=%v", rep.Quarantined, c.moved)
			}
			if c.moved {
				kept, err := os.ReadFile(rep.Quarantined)
				if err != nil || string(kept) != c.body {
					t.Fatalf("quarantined copy %q: %q, %v", rep.Quarantined, kept, err)
				}
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Fatalf("invalid file left in place: %v", err)
				}
			}
		})
	}
	// A second invalid write at the same second keeps the first evidence.
	bad := filepath.Join(dec, "twice.json")
	for i := range 2 {
		os.WriteFile(bad, []byte("{}"), 0o644)
		if rep := Check(bad, base, now, opts); !strings.HasSuffix(rep.Quarantined, map[int]string{0: ".1773570600", 1: ".1773570600.1"}[i]) {
			t.Fatalf("round %d quarantined to %q", i, rep.Quarantined)
		}
	}
	// Outside the root: nothing said, nothing moved.
	outside := filepath.Join(base, "elsewhere", "x.json")
	os.WriteFile(outside, []byte("{}"), 0o644)
	if rep := Check(outside, base, now, opts); rep != (Report{}) {
		t.Fatalf("outside file reported: %+v", rep)
	}
}

func TestFilePath(t *testing.T) {
	cases := map[string]string{
		`{"file_path":"/a"}`:              "/a",
		`{"notebook_path":"/n.ipynb"}`:    "/n.ipynb",
		`{"file_path":7}`:                 "",
		`"string"`:                        "",
		``:                                "",
		`{"file_path":"","content":"x"}`:  "",
		`{"file_path":"/b","edits":[{}]}`: "/b",
	}
	for in, want := range cases {
		if got := FilePath(json.RawMessage(in)); got != want {
			t.Errorf("FilePath(%s) = %q, want %q", in, got, want)
		}
	}
}

func FuzzClassify(f *testing.F) {
	f.Add(`{"file_path":"/tmp/.memory-write-pending-x.json"}`)
	f.Add(`{"file_path":"../../.claude/memory/decisions/../x.json"}`)
	f.Add(`{"file_path":"~/zylos/memory/records/a.json"}`)
	f.Fuzz(func(t *testing.T, toolInput string) {
		opts := Options{Root: "/nonexistent/zylos/memory/records", Home: "/nonexistent", TempDir: "/tmp"}
		p := FilePath(json.RawMessage(toolInput))
		tgt := Classify(p, "/nonexistent/cwd", opts)
		if tgt.Class == Protected && Guard(p, "/nonexistent/cwd", opts) == nil {
			t.Fatalf("protected path %q not denied", p)
		}
		if strings.Contains(filepath.ToSlash(filepath.Clean("/nonexistent/cwd/"+p)), "/.claude/memory/decisions/") &&
			!filepath.IsAbs(p) && !strings.HasPrefix(p, "~") && tgt.Class == Outside {
			t.Fatalf("plugin root path %q classified outside", p)
		}
	})
}

// FuzzCheck writes arbitrary bytes as a record and checks it: the file is
// either accepted in place or moved aside intact, never lost.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(validDecision))
	f.Add([]byte(`{"category":"decision"}`))
	f.Add([]byte("\xff\x00"))
	root := filepath.Join(f.TempDir(), "records")
	os.MkdirAll(filepath.Join(root, "decisions"), 0o755)
	opts := Options{Root: root, TempDir: "/tmp"}
	f.Fuzz(func(t *testing.T, body []byte) {
		path := filepath.Join(root, "decisions", "f.json")
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		rep := Check(path, "/", time.Unix(0, 0), opts)
		kept := path
		if rep.Quarantined != "" {
			kept = rep.Quarantined
		}
		if data, err := os.ReadFile(kept); err != nil || !bytes.Equal(data, body) {
			t.Fatalf("record lost: %v", err)
		}
		os.Remove(kept)
	})
}

// BenchmarkGuardDecision is the in-process cost of one PreToolUse decision.
func BenchmarkGuardDecision(b *testing.B) {
	root := filepath.Join(b.TempDir(), "zylos", "memory", "records")
	os.MkdirAll(filepath.Join(root, "decisions"), 0o755)
	opts := Options{Root: root, TempDir: "/tmp"}
	input := json.RawMessage(`{"file_path":"` + filepath.Join(root, "decisions", "x.json") + `"}`)
	for range b.N {
		if Guard(FilePath(input), "/", opts) == nil {
			b.Fatal("not denied")
		}
	}
}
