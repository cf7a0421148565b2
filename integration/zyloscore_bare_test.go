package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// A home without memory files or layout setting is today's zylos
// (v0.7.1): its comm-bridge and its scripts run there before anything
// seeds memory. These tests run v0.7.1's own scripts in such a home and
// the binary in its twin, command for command, and compare the bytes.

// bareStep is one command: a v0.7.1 script (under comm-bridge/scripts, or
// "zylos-memory/<script>") with its arguments; the binary runs the
// command that replaces it with the same arguments.
type bareStep struct {
	script string
	args   []string
}

var bareCommands = map[string][]string{
	"c4-receive.js":                  {"c4", "receive"},
	"c4-checkpoint.js":               {"c4", "checkpoint"},
	"c4-session-init.js":             {"c4", "session-init"},
	"c4-fetch.js":                    {"c4", "fetch"},
	"zylos-memory/rotate-session.js": {"rotate"},
}

func step(script string, a ...string) bareStep { return bareStep{script, a} }

// bareTwins are a home for v0.7.1's scripts (installed under its
// .claude/skills, as zylos installs them) and a bare one for the binary,
// each with the channel skills given.
type bareTwins struct {
	node          nodeC4
	nodeHome, bin string
	run           testutil.Run
}

func newBareTwins(t *testing.T, channels ...string) bareTwins {
	t.Helper()
	nodeHome := filepath.Join(t.TempDir(), "zylos")
	node := newNodeSkills(t, coreV071, filepath.Join(nodeHome, ".claude", "skills"))
	bin := filepath.Join(t.TempDir(), "zylos")
	os.MkdirAll(bin, 0o755)
	installChannels(t, nodeHome, channels...)
	installChannels(t, bin, channels...)
	// No layout setting: the home as the binary finds it.
	return bareTwins{node: node, nodeHome: nodeHome, bin: bin, run: testutil.Run{ZylosDir: bin, Env: []string{"ZYLOS_MEMORY_LAYOUT="}}}
}

var (
	sqliteStamp = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}`)
	isoStamp    = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z`)
)

// normalize writes each home as $ZYLOS_DIR and each moment as <time>: the
// script ran on the real clock, the binary on the test's.
func (b bareTwins) normalize(s string) string {
	s = strings.ReplaceAll(s, b.nodeHome, "$ZYLOS_DIR")
	s = strings.ReplaceAll(s, b.bin, "$ZYLOS_DIR")
	s = isoStamp.ReplaceAllString(s, "<time>")
	return sqliteStamp.ReplaceAllString(s, "<time>")
}

// do runs each step both ways; with compare set it requires the same
// stdout, stderr and exit code.
func (b bareTwins) do(t *testing.T, compare bool, steps ...bareStep) {
	t.Helper()
	for _, s := range steps {
		nodeOut, nodeErr, nodeCode := b.node.run(t, b.nodeHome, s.script, s.args...)
		res := b.run.Exec(t, append(append([]string{}, bareCommands[s.script]...), s.args...)...)
		if !compare {
			continue
		}
		want := b.normalize(nodeOut + "--- stderr\n" + nodeErr)
		got := b.normalize(res.Stdout + "--- stderr\n" + res.Stderr)
		if want != got || nodeCode != res.Code {
			t.Errorf("%s %.120q: exit %d, want %d (node); output (-node +binary):\n%s", s.script, s.args, res.Code, nodeCode, testutil.Diff(want, got))
		}
	}
}

// warmUp creates both C4 databases first, as zylos-core's tests do: the
// first-use notice goes to stdout in Node, to stderr in the binary.
func (b bareTwins) warmUp(t *testing.T) {
	t.Helper()
	b.do(t, false, step("c4-checkpoint.js", "latest"))
}

// TestBareHomeSessionInit: v0.7.1's c4-session-init.js framing, its
// fallback for a checkpoint without summary, its threshold (15) and its
// reply routes, one per inbound message even when a legacy one was stored.
func TestBareHomeSessionInit(t *testing.T) {
	receive := func(content string) bareStep {
		return step("c4-receive.js", "--channel", "system", "--no-reply", "--content", content)
	}
	cases := []struct {
		name  string
		steps []bareStep
	}{
		{"summary", []bareStep{receive("msg1"), step("c4-checkpoint.js", "create", "1", "--summary", "Synced first batch"), receive("msg2")}},
		{"no summary", []bareStep{receive("msg1"), step("c4-checkpoint.js", "create", "1"), receive("msg2")}},
		{"under threshold", []bareStep{receive("msg1"), receive("msg2"), receive("msg3")}},
		{"reply routes", []bareStep{
			step("c4-receive.js", "--channel", "telegram", "--endpoint", "123", "--content", "hello"),
			step("c4-receive.js", "--channel", "telegram", "--endpoint", "123", "--content", `legacy ---- reply via: node /tmp/c4-send.js "telegram" "123"`),
			step("c4-receive.js", "--channel", "telegram", "--endpoint", "123", "--no-reply", "--content", "no callback"),
		}},
		{"over threshold", func() []bareStep {
			var steps []bareStep
			for i := 1; i <= 16; i++ {
				steps = append(steps, receive("msg"+string(rune('a'+i))))
			}
			return steps
		}()},
		{"no conversations", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBareTwins(t, "telegram")
			b.warmUp(t)
			b.do(t, true, tc.steps...)
			b.do(t, true, step("c4-session-init.js"))
		})
	}
}

// TestBareHomeReceiveStoresAsGiven: the binary's c4 receive stores what
// v0.7.1's c4-receive.js stores (the content as given, whatever its size,
// no reply route, no endpoint under --no-reply, no attachment), so every
// reader of the database, the conversation budget packer of v0.7.1's
// session start included, sees the same rows; and c4 fetch shows them
// without a route.
func TestBareHomeReceiveStoresAsGiven(t *testing.T) {
	b := newBareTwins(t, "telegram")
	b.warmUp(t)
	b.do(t, true,
		step("c4-receive.js", "--channel", "system", "--no-reply", "--content", "UNIQ_MARK_1 "+strings.Repeat("x", 1800)),
		step("c4-receive.js", "--channel", "system", "--no-reply", "--content", "UNIQ_MARK_2 "+strings.Repeat("的", 650)),
		step("c4-receive.js", "--channel", "system", "--no-reply", "--content", "UNIQ_MARK_3 "+strings.Repeat("z", 3000)),
		step("c4-receive.js", "--channel", "telegram", "--endpoint", "123", "--content", "clean msg"),
		step("c4-receive.js", "--channel", "telegram", "--endpoint", "123", "--no-reply", "--priority", "1", "--require-idle", "--content", "no callback"),
	)
	b.do(t, true, step("c4-fetch.js", "--unsummarized"), step("c4-fetch.js", "--begin", "4", "--end", "5"))
	const rows = `SELECT direction || '|' || channel || '|' || COALESCE(endpoint_id, 'NULL') || '|' || status || '|' || priority || '|' || require_idle || '|' || content FROM conversations ORDER BY id`
	nodeDB := rawDB(t, filepath.Join(b.nodeHome, "comm-bridge", "c4.db"))
	defer nodeDB.Close()
	binDB := rawDB(t, filepath.Join(b.bin, "comm-bridge", "c4.db"))
	defer binDB.Close()
	want, got := strings.Join(queryStrings(t, nodeDB, rows), "\n"), strings.Join(queryStrings(t, binDB, rows), "\n")
	if want != got {
		t.Errorf("stored rows differ (-node +binary):\n%s", testutil.Diff(want, got))
	}
	for _, home := range []string{b.nodeHome, b.bin} {
		if _, err := os.Stat(filepath.Join(home, "comm-bridge", "attachments")); !os.IsNotExist(err) {
			t.Errorf("%s: an attachment was written (%v)", home, err)
		}
	}
}

// TestBareHomeCheckpointCommands: v0.7.1's c4-checkpoint.js subcommands,
// their usage and errors, byte for byte.
func TestBareHomeCheckpointCommands(t *testing.T) {
	b := newBareTwins(t)
	b.warmUp(t)
	b.do(t, true,
		step("c4-checkpoint.js", "create", "10", "--summary", "First"),
		step("c4-checkpoint.js", "create", "20"),
		step("c4-checkpoint.js", "list"),
		step("c4-checkpoint.js", "list", "--limit", "2"),
		step("c4-checkpoint.js", "list", "--limit", "-1"),
		step("c4-checkpoint.js", "list", "--limit", "1.5"),
		step("c4-checkpoint.js", "latest"),
		step("c4-checkpoint.js", "foobar"),
		step("c4-checkpoint.js", "50"),
		step("c4-checkpoint.js", "--help"),
		step("c4-checkpoint.js", "-h"),
		step("c4-checkpoint.js"),
		step("c4-checkpoint.js", "create"),
		step("c4-checkpoint.js", "create", "--summary", "x"),
	)
}

// TestBareHomeRotate: v0.7.1's rotate-session.js wording, for a log of an
// earlier day, a name already taken, a log without its header and headers
// its pattern reads otherwise than the v2-era one, and the files it leaves
// (on the real clock, as the script).
func TestBareHomeRotate(t *testing.T) {
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02")
	cases := map[string]map[string]string{
		"yesterday":                {"current.md": "# Session Log: " + yesterday + "\n\nYesterday entries.\n"},
		"collision":                {"current.md": "# Session Log: " + yesterday + "\n\nNew entries.\n", yesterday + ".md": "earlier archive\n"},
		"no header":                {"current.md": "No header here, just content.\n"},
		"header without its space": {"current.md": "# Session Log:" + yesterday + "\n"},
		"header with words after":  {"current.md": "# Session Log: " + yesterday + " (Friday)\n"},
		"header after a CR":        {"current.md": "notes\r# Session Log: " + yesterday + "  \r\nmore\n"},
		"no log":                   {},
		"empty log":                {"current.md": ""},
	}
	for name, files := range cases {
		t.Run(name, func(t *testing.T) {
			b := newBareTwins(t)
			b.run.Env = append(b.run.Env, "ZYLOS_MEMORY_NOW=")
			stamp := time.Now().Add(-time.Hour)
			for _, home := range []string{b.nodeHome, b.bin} {
				sessions := filepath.Join(home, "memory", "sessions")
				os.MkdirAll(sessions, 0o755)
				for f, content := range files {
					os.WriteFile(filepath.Join(sessions, f), []byte(content), 0o644)
					os.Chtimes(filepath.Join(sessions, f), stamp, stamp)
				}
			}
			b.do(t, true, step("zylos-memory/rotate-session.js"))
			want, got := sessionFiles(t, b.nodeHome), sessionFiles(t, b.bin)
			if want != got {
				t.Errorf("sessions differ (-node +binary):\n%s", testutil.Diff(want, got))
			}
		})
	}
}

// sessionFiles lists memory/sessions: each file's name and content.
func sessionFiles(t *testing.T, home string) string {
	t.Helper()
	dir := filepath.Join(home, "memory", "sessions")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString("== " + e.Name() + "\n" + string(data))
	}
	return b.String()
}
