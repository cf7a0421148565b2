package integration

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/templates"
)

// fixedMtime is the modification time every generated file gets, so the
// status and consolidate reports are reproducible.
var fixedMtime = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

// tree is a memory tree to generate: path (relative to the zylos home) to
// content. A content starting with "->" makes a symlink to the rest, "/"
// as the last byte of the path makes a directory.
type tree map[string]string

// tierScenario is one generated tree and what runs on it.
type tierScenario struct {
	name  string
	files tree
	env   []string
	// differs names the commands whose output deliberately differs from the
	// Node script's on this tree, with the reason (a required fix, or a
	// clear error where Node prints a stack trace).
	differs map[string]string
}

var tierCommands = []struct{ name, script string }{
	{"inject", "session-start-inject.js"},
	{"rotate", "rotate-session.js"},
	{"status", "memory-status.js"},
	{"consolidate", "consolidate.js"},
}

func typicalTree() tree {
	return tree{
		"memory/core.md":                   "# Core Memory\n\n## Identity\nA zylos agent.\n",
		"memory/reference/decisions.md":    "# Decisions Log\n\n### [2026-01-05] Use SQLite\n- **Decision:** yes\n- **Context:** speed\n- **Status:** active\n",
		"memory/reference/projects.md":     "# Projects\n\n### Memory v2\n- **Status:** active\n- **Updated:** 2026-03-10\n",
		"memory/reference/preferences.md":  "# User Preferences\n\n### Tone\n- **Value:** brief\n- **Source:** stated\n- **Added:** 2026-02-01\n",
		"memory/sessions/current.md":       "# Session Log: 2026-03-14\n\n**09:00** - started\n",
		"memory/sessions/2026-03-13.md":    "# Session Log: 2026-03-13\n\n**10:00** - work\n",
		"memory/sessions/2026-02-01.md":    "# Session Log: 2026-02-01\n",
		"memory/archive/2025-12-01.md":     "# Session Log: 2025-12-01\n",
		"comm-bridge/.keep":                "",
		"memory/.state/reports/old.json":   "not scanned",
		"memory/sessions/.gitkeep":         "",
		"memory/reference/notes/deep/x.md": "nested\n",
	}
}

func tierScenarios() []tierScenario {
	crash := "Node crashes with a stack trace; we print one line"
	return []tierScenario{
		{name: "empty-home", files: tree{}},
		{name: "typical", files: typicalTree()},
		{name: "no-core", files: tree{"memory/reference/decisions.md": "# Decisions\n"}},
		{name: "empty-core", files: tree{"memory/core.md": ""}},
		{name: "core-over-cap", files: tree{"memory/core.md": "# Core\n" + strings.Repeat("x", 3100) + "\n"}},
		{name: "core-exactly-cap", files: tree{"memory/core.md": strings.Repeat("y", 3071) + "\n"}},
		{name: "core-json-hostile", files: tree{"memory/core.md": "quote \" back \\ tab\t cr\r bell\x07 del\x7f <b>&amp; \u2028\u2029 emoji 😀\n"}},
		{name: "core-invalid-utf8", files: tree{"memory/core.md": "ok \xff\xfe bad \xe2\x82 cut \xf0\x9f\x98 end \xed\xa0\x80\n"}},
		{name: "core-bom-crlf", files: tree{"memory/core.md": "\ufeff# Core\r\n\r\nline\r\n"}},
		{name: "same-day", files: tree{"memory/sessions/current.md": "# Session Log: 2026-03-15\n\n**08:00** - hi\n"}},
		{name: "old-dated-current", files: tree{"memory/sessions/current.md": "# Session Log: 2026-03-14\n\n**23:00** - late\n"}},
		{name: "future-dated-current", files: tree{"memory/sessions/current.md": "# Session Log: 2026-04-01\n"}},
		{name: "header-not-first-line", files: tree{"memory/sessions/current.md": "notes\n# Session Log: 2026-03-10\n"}},
		{name: "header-after-cr", files: tree{"memory/sessions/current.md": "x\r# Session Log: 2026-03-11\r"}},
		{name: "crlf-current", files: tree{"memory/sessions/current.md": "# Session Log: 2026-03-14\r\n\r\n**09:00** - crlf\r\n"}},
		{name: "impossible-date-header", files: tree{"memory/sessions/current.md": "# Session Log: 2026-13-45\n"}},
		{name: "no-current", files: tree{"memory/sessions/2026-03-14.md": "# Session Log: 2026-03-14\n"}},
		{name: "no-sessions-dir", files: tree{"memory/core.md": "# Core\n"}},
		{
			name:    "header-less-current",
			files:   tree{"memory/sessions/current.md": "loose notes without a header\n"},
			differs: map[string]string{"rotate": "fix: Node overwrites it; we keep it under its mtime date"},
		},
		{name: "empty-current", files: tree{"memory/sessions/current.md": ""}},
		{
			name: "rotation-collision",
			files: tree{
				"memory/sessions/current.md":    "# Session Log: 2026-03-14\n\nsecond\n",
				"memory/sessions/2026-03-14.md": "# Session Log: 2026-03-14\n\nfirst\n",
			},
			differs: map[string]string{"rotate": "fix: Node clobbers 2026-03-14.md; we write 2026-03-14-1.md"},
		},
		{
			name:    "current-symlink",
			files:   tree{"memory/sessions/current.md": "->../notes.md", "memory/notes.md": "# Session Log: 2026-03-14\n"},
			differs: map[string]string{"rotate": "fix: Node renames the link; we refuse and change nothing"},
		},
		{
			name:    "current-directory",
			files:   tree{"memory/sessions/current.md/": ""},
			differs: map[string]string{"rotate": crash},
		},
		{
			name: "old-sessions",
			files: tree{
				"memory/sessions/2026-02-13.md": "", "memory/sessions/2026-02-14.md": "",
				"memory/sessions/2026-02-15.md": "", "memory/sessions/2026-02-16.md": "",
				"memory/sessions/2026-02-30.md": "", "memory/sessions/2026-13-45.md": "",
				"memory/sessions/2026-01-00.md": "", "memory/sessions/2025-03-01.md": "",
				"memory/sessions/2025-03-01-1.md": "", "memory/sessions/notes.md": "",
				"memory/sessions/2025-01-01.txt": "", "memory/sessions/.2025-01-01.md": "",
				"memory/sessions/current.md": "# Session Log: 2026-03-15\n",
			},
		},
		{
			name: "old-sessions-east",
			files: tree{
				"memory/sessions/2026-02-13.md": "", "memory/sessions/2026-02-14.md": "",
				"memory/sessions/2026-02-15.md": "", "memory/sessions/current.md": "# Session Log: 2026-03-15\n",
			},
			env: []string{"TZ=Asia/Shanghai", "ZYLOS_MEMORY_NOW=2026-03-15T17:30:00Z"},
		},
		{
			name:  "old-sessions-west",
			files: tree{"memory/sessions/2026-02-13.md": "", "memory/sessions/2026-02-14.md": "", "memory/sessions/current.md": "# Session Log: 2026-03-14\n"},
			env:   []string{"TZ=America/Los_Angeles", "ZYLOS_MEMORY_NOW=2026-03-15T03:30:00Z"},
		},
		{
			name: "reference-big-and-hidden",
			files: tree{
				"memory/reference/big.md":     strings.Repeat("z", 10241),
				"memory/reference/edge.md":    strings.Repeat("z", 10240),
				"memory/reference/.hidden":    "h",
				"memory/reference/sub/":       "",
				"memory/.hidden-top.md":       "skip me",
				"memory/Zeta.md":              "upper case sorts first",
				"memory/a b.md":               "space",
				"memory/sizes/1535.md":        strings.Repeat("s", 1535),
				"memory/sizes/1536.md":        strings.Repeat("s", 1536),
				"memory/sizes/1587.md":        strings.Repeat("s", 1587),
				"memory/sizes/1023.md":        strings.Repeat("s", 1023),
				"memory/sizes/1024.md":        strings.Repeat("s", 1024),
				"memory/sizes/1280.md":        strings.Repeat("s", 1280),
				"memory/sizes/2304.md":        strings.Repeat("s", 2304),
				"memory/reference/linked.md":  "->big.md",
				"memory/reference/uni-ü-😀.md": "unicode name",
			},
		},
		{
			name:    "broken-symlink",
			files:   tree{"memory/dangling.md": "->nowhere.md", "memory/reference/gone.md": "->nowhere.md"},
			differs: map[string]string{"status": crash, "consolidate": crash},
		},
		{
			name:    "core-directory",
			files:   tree{"memory/core.md/": ""},
			differs: map[string]string{"inject": crash},
		},
		{
			name:    "memory-is-a-file",
			files:   tree{"memory": "not a dir"},
			differs: map[string]string{"rotate": crash, "status": crash, "consolidate": crash},
		},
	}
}

// build writes files under home with fixedMtime.
func (tr tree) build(t testing.TB, home string) {
	t.Helper()
	paths := make([]string, 0, len(tr))
	for p := range tr {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		content := tr[p]
		full := filepath.Join(home, p)
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		switch {
		case strings.HasSuffix(p, "/"):
			must(t, os.MkdirAll(full, 0o755))
		case strings.HasPrefix(content, "->"):
			must(t, os.Symlink(content[2:], full))
			continue
		default:
			must(t, os.WriteFile(full, []byte(content), 0o644))
		}
	}
	// Directories change mtime as files are added: date everything last.
	must(t, filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		return os.Chtimes(path, fixedMtime, fixedMtime)
	}))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot lists every entry under home except service state: path, kind,
// size and a short content hash, one line each.
func snapshot(t testing.TB, home string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == home {
			return err
		}
		rel, _ := filepath.Rel(home, path)
		if d.IsDir() && (d.Name() == ".state" || d.Name() == ".git") {
			return filepath.SkipDir // the service's state, the memory journal
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			lines = append(lines, fmt.Sprintf("%s -> %s", rel, target))
		case d.IsDir():
			lines = append(lines, rel+"/")
		default:
			data, _ := os.ReadFile(path)
			// Files that name the home (the skill files) are hashed as if
			// it were $ZYLOS_DIR, so the figures do not depend on it.
			data = bytes.ReplaceAll(data, []byte(home), []byte("$ZYLOS_DIR"))
			sum := sha256.Sum256(data)
			lines = append(lines, fmt.Sprintf("%s %d %x", rel, len(data), sum[:6]))
		}
		return nil
	})
	return strings.Join(lines, "\n") + "\n"
}

// formatResult is what a golden file holds; the temp home is written as
// $ZYLOS_DIR so the file does not depend on where the test ran.
func formatResult(res testutil.Result, home, files string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "exit %d\n--- stdout\n%s--- stderr\n%s--- files\n%s", res.Code, res.Stdout, res.Stderr, files)
	return bytes.ReplaceAll(b.Bytes(), []byte(home), []byte("$ZYLOS_DIR"))
}

// TestTierCommandsGolden runs every tier command on every generated tree
// and holds stdout, stderr, exit code and the files left behind in a
// golden file; with node and the seed at hand it also runs the Node script
// on an identical tree and requires the same result.
func TestTierCommandsGolden(t *testing.T) {
	node := newNodeScripts(t)
	for _, sc := range tierScenarios() {
		for _, cmd := range tierCommands {
			t.Run(sc.name+"/"+cmd.name, func(t *testing.T) {
				home := filepath.Join(t.TempDir(), "zylos")
				must(t, os.MkdirAll(home, 0o755))
				sc.files.build(t, home)
				res := testutil.Run{ZylosDir: home, Env: sc.env}.Exec(t, cmd.name)
				got := formatResult(res, home, snapshot(t, home))
				testutil.Golden(t, filepath.Join("testdata", "tiers", sc.name+"."+cmd.name+".golden"), got)
				if node == nil {
					return
				}
				if reason, ok := sc.differs[cmd.name]; ok {
					t.Logf("not compared with Node: %s", reason)
					return
				}
				nodeHome := filepath.Join(t.TempDir(), "zylos")
				must(t, os.MkdirAll(nodeHome, 0o755))
				sc.files.build(t, nodeHome)
				want := formatResult(node.run(t, cmd.script, nodeHome, sc.env), nodeHome, snapshot(t, nodeHome))
				if !bytes.Equal(got, want) {
					t.Errorf("differs from %s (-node +go):\n%s", cmd.script, testutil.Diff(string(want), string(got)))
				}
			})
		}
	}
}

// aliases must behave exactly as the commands they name.
func TestTierAliases(t *testing.T) {
	for alias, name := range map[string]string{"session-start-inject": "inject", "rotate-session": "rotate", "memory-status": "status"} {
		home := filepath.Join(t.TempDir(), "zylos")
		typicalTree().build(t, home)
		a := testutil.Run{ZylosDir: home}.Exec(t, alias)
		home2 := filepath.Join(t.TempDir(), "zylos")
		typicalTree().build(t, home2)
		b := testutil.Run{ZylosDir: home2}.Exec(t, name)
		if a != b {
			t.Errorf("%s = %+v, %s = %+v", alias, a, name, b)
		}
	}
}

// nodeScripts runs the seed-002 scripts, extracted at run time.
type nodeScripts struct {
	dir, node string
}

func newNodeScripts(t testing.TB) *nodeScripts {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Log("node not found: Node differential comparison skipped")
		return nil
	}
	dir := t.TempDir()
	if err := extractSeedScripts(dir); err != nil {
		t.Logf("seed scripts unavailable (%v): Node differential comparison skipped", err)
		return nil
	}
	return &nodeScripts{dir: dir, node: node}
}

func (n *nodeScripts) run(t testing.TB, script, home string, env []string) testutil.Result {
	t.Helper()
	now := "2026-03-15T10:30:00Z"
	tz := "UTC"
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "ZYLOS_MEMORY_NOW":
			now = v
		case "TZ":
			tz = v
		}
	}
	cmd := exec.Command(n.node, "--import", filepath.Join(n.dir, "fake-clock.mjs"), filepath.Join(n.dir, strings.TrimSuffix(script, ".js")+".mjs"))
	cmd.Env = []string{"HOME=" + filepath.Dir(home), "TZ=" + tz, "FAKE_NOW=" + now, "PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := testutil.Result{Stdout: stdout.String(), Stderr: stderr.String()}
	if exit, ok := err.(*exec.ExitError); ok {
		res.Code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("node %s: %v", script, err)
	}
	return res
}

// seedPath is seed 002, beside the module root; ZYLOS_SEED_002 overrides it.
func seedPath() string {
	if p := os.Getenv("ZYLOS_SEED_002"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "shared", "seeds", "002_d2e99234cf75a2e9.txt")
}

// fakeClock is a preload that fixes new Date() and Date.now() at FAKE_NOW,
// leaving new Date(value) alone.
const fakeClock = `const fixed = Date.parse(process.env.FAKE_NOW);
const RealDate = Date;
class FakeDate extends RealDate {
  constructor(...args) { if (args.length === 0) super(fixed); else super(...args); }
  static now() { return fixed; }
}
globalThis.Date = FakeDate;
`

// extractSeedScripts writes each Node script of seed 002 as an ES module
// into dir, with the fake clock preload beside them. The scripts are never
// stored in the repository.
func extractSeedScripts(dir string) error {
	seed, err := os.ReadFile(seedPath())
	if err != nil {
		return err
	}
	for _, c := range tierCommands {
		heading := regexp.MustCompile(`(?m)^(### [0-9.]+ scripts/|This is a new script: .*scripts/)` + regexp.QuoteMeta(c.script))
		loc := heading.FindIndex(seed)
		if loc == nil {
			return fmt.Errorf("%s not found in the seed", c.script)
		}
		rest := seed[loc[1]:]
		start := bytes.Index(rest, []byte("```javascript\n"))
		if start < 0 {
			return fmt.Errorf("no code block for %s", c.script)
		}
		code := rest[start+len("```javascript\n"):]
		end := bytes.Index(code, []byte("\n```"))
		if end < 0 {
			return fmt.Errorf("unterminated code block for %s", c.script)
		}
		name := strings.TrimSuffix(c.script, ".js") + ".mjs"
		if err := os.WriteFile(filepath.Join(dir, name), append(code[:end:end], '\n'), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "fake-clock.mjs"), []byte(fakeClock), 0o644)
}

// A 50 MB core.md is printed whole in the v2 format (parity) and capped
// below Claude Code's limit in the claude format.
func TestInjectHugeCore(t *testing.T) {
	home := filepath.Join(t.TempDir(), "zylos")
	core := strings.Repeat("a line of core memory that goes on and on\n", 50<<20/43)
	tree{"memory/core.md": core}.build(t, home)
	res := testutil.Run{ZylosDir: home}.Exec(t, "inject")
	if res.Code != 0 || len(res.Stdout) < len(core) || !strings.HasSuffix(res.Stdout, "\"}\n") {
		t.Fatalf("v2: exit %d, %d bytes, stderr %q", res.Code, len(res.Stdout), res.Stderr)
	}
	res = testutil.Run{ZylosDir: home}.Exec(t, "inject", "--format", "claude")
	if res.Code != 0 || len(res.Stdout) > 12000 || !strings.Contains(res.Stdout, "[... truncated: the last ") {
		t.Fatalf("claude: exit %d, %d bytes, stderr %q", res.Code, len(res.Stdout), res.Stderr)
	}
}

// TestInitCommand holds what init does to the memory tiers and the skill
// files; the lines of the other init steps (C4 DB, hooks, scheduler) are
// left to their own tests.
func TestInitCommand(t *testing.T) {
	home := filepath.Join(t.TempDir(), "zylos")
	var got bytes.Buffer
	for _, run := range []string{"first run", "second run"} {
		res := testutil.Run{ZylosDir: home}.Exec(t, "init")
		res.Stdout = tierLines(res.Stdout)
		got.WriteString("=== " + run + "\n")
		got.Write(formatResult(res, home, tierFiles(snapshot(t, home))))
	}
	testutil.Golden(t, filepath.Join("testdata", "tiers", "init.golden"), got.Bytes())
	if !strings.Contains(got.String(), "nothing changed") {
		t.Errorf("second run did not say nothing changed:\n%s", got.String())
	}
}

// tierLines keeps the init lines about memory files and skill files.
func tierLines(out string) string {
	var keep []string
	for _, line := range strings.SplitAfter(out, "\n") {
		for _, prefix := range []string{"created memory/", "created .claude/skills/", "replaced ", "kept ", "memory already initialised"} {
			if strings.HasPrefix(line, prefix) {
				keep = append(keep, line)
				break
			}
		}
	}
	return strings.Join(keep, "")
}

// tierFiles keeps the snapshot lines under memory/ and the skill dir.
func tierFiles(snap string) string {
	var keep []string
	for _, line := range strings.SplitAfter(snap, "\n") {
		if strings.HasPrefix(line, "memory/") || strings.HasPrefix(line, ".claude/skills/") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

// Rotations started at once by several processes archive the old log once
// and lose nothing.
func TestRotateConcurrentProcesses(t *testing.T) {
	home := filepath.Join(t.TempDir(), "zylos")
	tree{"memory/sessions/current.md": "# Session Log: 2026-03-14\n\nkeep me\n"}.build(t, home)
	const n = 8
	results := make(chan testutil.Result, n)
	for i := 0; i < n; i++ {
		go func() { results <- testutil.Run{ZylosDir: home}.Exec(t, "rotate") }()
	}
	rotated := 0
	for i := 0; i < n; i++ {
		res := <-results
		if res.Code != 0 {
			t.Errorf("exit %d: %s", res.Code, res.Stderr)
		}
		if strings.Contains(res.Stdout, "Rotated:") {
			rotated++
		}
	}
	if rotated != 1 {
		t.Errorf("%d processes rotated, want 1", rotated)
	}
	want := tree{
		"memory/sessions/2026-03-14.md": "# Session Log: 2026-03-14\n\nkeep me\n",
		"memory/sessions/current.md":    "# Session Log: 2026-03-15\n\n",
	}
	wantHome := filepath.Join(t.TempDir(), "zylos")
	want.build(t, wantHome)
	if got, wantFiles := snapshot(t, home), snapshot(t, wantHome); got != wantFiles {
		t.Errorf("files after concurrent rotation:\n%s\nwant:\n%s", got, wantFiles)
	}
}

// A read-only sessions dir: a clear one-line error, nothing lost.
func TestRotateReadOnlySessions(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: permissions are not enforced")
	}
	home := filepath.Join(t.TempDir(), "zylos")
	tree{"memory/sessions/current.md": "# Session Log: 2026-03-14\n"}.build(t, home)
	sessions := filepath.Join(home, "memory", "sessions")
	must(t, os.Chmod(sessions, 0o555))
	defer os.Chmod(sessions, 0o755)
	res := testutil.Run{ZylosDir: home}.Exec(t, "rotate")
	if res.Code == 0 || strings.Count(res.Stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", res.Code, res.Stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(sessions, "current.md")); string(data) != "# Session Log: 2026-03-14\n" {
		t.Errorf("current.md = %q", data)
	}
}

// Every command the skill files tell the agent to run exists, and none of
// them sends it to a Node script.
func TestSkillFilesNameRealCommands(t *testing.T) {
	mention := regexp.MustCompile("zylos-memory ([a-z-]+)(?: ([a-z-]+))?")
	for _, name := range []string{"SKILL.md", "CLAUDE.md"} {
		data, err := fs.ReadFile(templates.FS, "skill/"+name)
		must(t, err)
		if strings.Contains(string(data), "node ") {
			t.Errorf("%s still runs a node script", name)
		}
		for _, m := range mention.FindAllStringSubmatch(string(data), -1) {
			args := []string{m[1]}
			if m[2] != "" && m[1] == "sync" {
				args = append(args, m[2])
			}
			if res := (testutil.Run{ZylosDir: t.TempDir()}).Exec(t, append(args, "--help")...); res.Code != 0 || !strings.HasPrefix(res.Stdout, "NAME:") {
				t.Errorf("%s names %q: exit %d %s", name, m[0], res.Code, res.Stderr)
			}
		}
	}
}
