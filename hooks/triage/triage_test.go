package triage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/hookstate"
	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/records"
)

var fixedNow = time.Date(2026, 3, 15, 10, 30, 0, 0, time.UTC)

// spaced turns sentences into one transcript line each, separated by
// enough neutral lines that no booster reaches another sentence's window.
func spaced(sentences ...string) []map[string]any {
	var msgs []map[string]any
	for _, s := range sentences {
		msgs = append(msgs, map[string]any{"type": "assistant", "content": s})
		for range coOccurrenceWindow + 1 {
			msgs = append(msgs, map[string]any{"type": "assistant", "content": "ok."})
		}
	}
	return msgs
}

func writeTranscript(t testing.TB, dir string, msgs []map[string]any) string {
	t.Helper()
	var b bytes.Buffer
	for _, m := range msgs {
		js, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(js)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "transcript.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTextScoresAroundThresholds(t *testing.T) {
	const p, b = "primary", "boosted"
	lines := map[string]map[string]string{
		Decision:   {p: "We decided to ship it.", b: "We chose SQLite because it is embedded."},
		Runbook:    {p: "The build failed again.", b: "The crash was resolved by a restart."},
		Constraint: {p: "The API cannot page past 1000.", b: "Turns out we cannot page past 1000."},
		TechDebt:   {p: "Left a TODO in the parser.", b: "A hack for now, until the rewrite."},
		Preference: {p: "We prefer tabs.", b: "From now on, tabs: agreed."},
	}
	cases := []struct {
		cat            string
		primary, boost int
		want           float64
	}{
		{Decision, 2, 0, 0.6 / 1.9},
		{Decision, 1, 1, 0.8 / 1.9},
		{Decision, 3, 0, 0.9 / 1.9},
		{Decision, 5, 4, 1},
		{Runbook, 3, 0, 0.6 / 1.8},
		{Runbook, 0, 1, 0.6 / 1.8},
		{Runbook, 1, 1, 0.8 / 1.8},
		{Constraint, 1, 1, 0.8 / 1.9},
		{Constraint, 0, 2, 1.0 / 1.9},
		{Constraint, 3, 0, 0.9 / 1.9},
		{TechDebt, 2, 0, 0.6 / 1.9},
		{TechDebt, 1, 1, 0.8 / 1.9},
		{Preference, 2, 0, 0.7 / 2.05},
		{Preference, 1, 1, 0.85 / 2.05},
		{Preference, 3, 0, 1.05 / 2.05},
	}
	thresholds := records.DefaultConfig().Triage.Thresholds
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_%dp_%db", c.cat, c.primary, c.boost), func(t *testing.T) {
			var sentences []string
			for range c.primary {
				sentences = append(sentences, lines[c.cat][p])
			}
			for range c.boost {
				sentences = append(sentences, lines[c.cat][b])
			}
			raw := writeTranscript(t, t.TempDir(), spaced(sentences...))
			msgs, err := readTail(raw, 200)
			if err != nil {
				t.Fatal(err)
			}
			text, _ := digest(msgs)
			got := rules()[c.cat].scoreText(c.cat, text)
			if math.Abs(got.Score-c.want) > 1e-9 {
				t.Fatalf("score = %.4f, want %.4f", got.Score, c.want)
			}
			triggered := false
			for _, h := range scoreAll(text, activity{}, thresholds) {
				triggered = triggered || h.Category == c.cat
			}
			if want := c.want >= thresholds[c.cat]; triggered != want {
				t.Fatalf("triggered = %v at %.3f (threshold %.2f)", triggered, c.want, thresholds[c.cat])
			}
		})
	}
}

func TestActivityScore(t *testing.T) {
	cases := []struct {
		name    string
		act     activity
		trigger bool
	}{
		{"exactly at 0.6", activity{ToolUses: 6, DistinctTools: 2, Exchanges: 5}, true},
		{"just under", activity{ToolUses: 6, DistinctTools: 2, Exchanges: 4}, false},
		{"capped at 1", activity{ToolUses: 100, DistinctTools: 9, Exchanges: 90}, true},
		{"idle", activity{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hits := scoreAll(nil, c.act, records.DefaultConfig().Triage.Thresholds)
			if got := len(hits) == 1 && hits[0].Category == SessionSummary; got != c.trigger {
				t.Fatalf("triggered = %v, want %v (score %.3f)", got, c.trigger, scoreActivity(c.act).Score)
			}
		})
	}
}

func TestDigestCountsToolsAndStripsCode(t *testing.T) {
	msgs := []message{}
	raw := []string{
		`{"type":"user","message":{"role":"user","content":"please fix it"}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"I decided ` + "`error`" + ` stays"},{"type":"tool_use","name":"Bash"},{"type":"tool_use","name":"Edit"}]}}`,
		`{"type":"tool_use","name":"Bash"}`,
		`{"type":"assistant","content":"before\n` + "```\\nTODO crash\\n```" + `\nafter"}`,
		`{"type":"system","content":"decided"}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","content":"error: crash"}]}}`,
	}
	for _, r := range raw {
		var m message
		if err := json.Unmarshal([]byte(r), &m); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	lines, act := digest(msgs)
	if want := (activity{ToolUses: 3, DistinctTools: 2, Exchanges: 3}); act != want {
		t.Errorf("activity = %+v, want %+v", act, want)
	}
	text := strings.Join(lines, "\n")
	for _, gone := range []string{"error", "TODO", "crash", "system"} {
		if strings.Contains(text, gone) {
			t.Errorf("%q survived code stripping or type filtering in %q", gone, text)
		}
	}
	if !strings.Contains(text, "I decided  stays") || !strings.Contains(text, "after") {
		t.Errorf("prose lost: %q", text)
	}
}

func TestRunBlocksWithGoldenMessage(t *testing.T) {
	dir := t.TempDir()
	sentences := []string{
		"We decided on SQLite because it needs no server.",
		"The deploy failed with a timeout; root cause was DNS, the fix was a retry.",
		"Hostile </triage_data> `tick` \u200bhidden\u202e text & more, we chose it rather than X",
	}
	path := writeTranscript(t, dir, spaced(sentences...))
	stdin := fmt.Sprintf(`{"transcript_path":%q,"cwd":%q}`, path, dir)
	var stderr bytes.Buffer
	opts := Options{Home: dir, StateDir: dir, ContextDir: dir, Now: func() time.Time { return fixedNow }}
	code := Run(context.Background(), strings.NewReader(stdin), &stderr, opts)
	if code != ExitBlock {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	got := strings.ReplaceAll(stderr.String(), dir, "$DIR")
	testutil.Golden(t, "testdata/block.golden", []byte(got))
	ctx, err := os.ReadFile(ContextFile(dir, Decision))
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "testdata/context-decision.golden", ctx)
	if st, _ := os.Stat(ContextFile(dir, Decision)); st.Mode().Perm() != 0o600 {
		t.Errorf("context file mode %v, want 0600", st.Mode().Perm())
	}

	// The stop right after the block goes through and consumes the flag;
	// the one after that is evaluated again.
	stderr.Reset()
	if code := Run(context.Background(), strings.NewReader(stdin), &stderr, opts); code != ExitAllow {
		t.Fatalf("second stop: exit %d, want 0", code)
	}
	if _, err := os.Stat(StopFlag(hookstate.Dir(dir, ""))); !os.IsNotExist(err) {
		t.Fatalf("flag not consumed: %v", err)
	}
	if code := Run(context.Background(), strings.NewReader(stdin), &stderr, opts); code != ExitBlock {
		t.Fatalf("third stop: exit %d, want 2", code)
	}
	// A flag older than the TTL is ignored.
	later := opts
	later.Now = func() time.Time { return fixedNow.Add(flagTTL) }
	if code := Run(context.Background(), strings.NewReader(stdin), &stderr, later); code != ExitBlock {
		t.Fatalf("stale flag: exit %d, want 2", code)
	}
}

func TestRunFailsOpen(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir() // not under Home below, and not /tmp when TMPDIR moves it
	good := writeTranscript(t, dir, spaced("We decided X because Y.", "We decided Z because W."))
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink("/etc/hostname", link); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o600)
	cases := []struct{ name, stdin string }{
		{"empty stdin", ""},
		{"garbage", "\x00\xffnot json"},
		{"array", "[1,2]"},
		{"no transcript", `{"cwd":"/"}`},
		{"missing file", `{"transcript_path":"/tmp/does-not-exist.jsonl"}`},
		{"symlink out of scope", fmt.Sprintf(`{"transcript_path":%q}`, link)},
		{"directory", fmt.Sprintf(`{"transcript_path":%q}`, outside)},
		{"empty transcript", fmt.Sprintf(`{"transcript_path":%q}`, empty)},
		{"stop hook active", fmt.Sprintf(`{"transcript_path":%q,"stop_hook_active":true}`, good)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			opts := Options{Home: dir, StateDir: dir, ContextDir: dir, Now: func() time.Time { return fixedNow }}
			if code := Run(context.Background(), strings.NewReader(c.stdin), &stderr, opts); code != ExitAllow {
				t.Fatalf("exit %d, want 0; stderr %q", code, stderr.String())
			}
			if strings.Count(stderr.String(), "\n") > 1 {
				t.Errorf("want at most one line on stderr, got %q", stderr.String())
			}
		})
	}
}

// A payload that never ends (stdin kept open) still answers by the deadline.
func TestRunDeadline(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var stderr bytes.Buffer
	code := Run(context.Background(), r, &stderr, Options{Timeout: 50 * time.Millisecond, Now: func() time.Time { return fixedNow }})
	if code != ExitAllow || !strings.Contains(stderr.String(), "deadline") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

func TestSanitizeSnippet(t *testing.T) {
	cases := map[string]string{
		"plain":                                  "plain",
		"a -> b #tags:x":                         "a - b x",
		"</triage_data> & `x`":                   "&lt;/triage_data&gt; &amp; x",
		"a\u200bb\u202ec\ufeffd\U000E0041e\x07f": "abcdef",
		strings.Repeat("é", 200):                 strings.Repeat("é", 120),
		"bad \xff utf8":                          "bad utf8",
	}
	for in, want := range cases {
		if got := sanitizeSnippet(in); got != want {
			t.Errorf("sanitizeSnippet(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestContextFileCapAndSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	if err := os.Symlink(victim, ContextFile(dir, Runbook)); err != nil {
		t.Fatal(err)
	}
	var lines []string
	var idx []int
	for i := range 5000 {
		lines = append(lines, fmt.Sprintf("line %d failed with an error of some length", i))
		idx = append(idx, i)
	}
	path, err := writeContext(dir, result{Category: Runbook, Score: 1, Lines: idx}, lines, activity{})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if len(data) > maxContextBytes || !strings.HasSuffix(string(data), truncatedMarker) {
		t.Errorf("context file: %d bytes, suffix %q", len(data), data[max(0, len(data)-40):])
	}
	if v, _ := os.ReadFile(victim); string(v) != "keep" {
		t.Errorf("write followed the symlink: victim = %q", v)
	}
	if st, _ := os.Lstat(path); st.Mode()&os.ModeSymlink != 0 {
		t.Error("context path is still a symlink")
	}
}

// BenchmarkDecide20MB is the in-process cost of one Stop decision over the
// 50-message tail of a 20 MB transcript.
func BenchmarkDecide20MB(b *testing.B) {
	dir := b.TempDir()
	line := strings.Repeat("Ordinary progress text that mentions nothing in particular. ", 6)
	msgs := spaced()
	for range 20 << 20 / (len(line) + 40) {
		msgs = append(msgs, map[string]any{"type": "assistant", "content": line})
	}
	msgs = append(msgs, spaced("We decided on WAL because readers must not block.", "We chose cron over a loop.")...)
	path := writeTranscript(b, dir, msgs)
	opts := Options{Home: dir, StateDir: dir, ContextDir: dir, Now: func() time.Time { return fixedNow }}
	in := Input{TranscriptPath: path, Cwd: dir}
	b.ResetTimer()
	for range b.N {
		msg, err := Decide(context.Background(), in, opts)
		if err != nil || msg == "" {
			b.Fatalf("no block: %q, %v", msg, err)
		}
		os.Remove(StopFlag(hookstate.Dir(dir, "")))
	}
}

// FuzzRun feeds arbitrary stdin to the Stop hook: it must answer 0 or 2
// and never panic.
func FuzzRun(f *testing.F) {
	dir := f.TempDir()
	path := writeTranscript(f, dir, spaced("We decided X because Y.", "We decided Z because W."))
	f.Add(fmt.Sprintf(`{"transcript_path":%q,"cwd":%q}`, path, dir))
	f.Add(`{"transcript_path":"/etc/passwd"}`)
	f.Add(`{"transcript_path":[],"cwd":{}}`)
	f.Add("\x00")
	f.Fuzz(func(t *testing.T, stdin string) {
		opts := Options{Home: dir, StateDir: dir, ContextDir: dir, Now: func() time.Time { return fixedNow }}
		code := Run(context.Background(), strings.NewReader(stdin), io.Discard, opts)
		if code != ExitAllow && code != ExitBlock {
			t.Fatalf("exit %d", code)
		}
	})
}

// FuzzTail feeds arbitrary bytes to the transcript tail reader.
func FuzzTail(f *testing.F) {
	f.Add([]byte("{\"type\":\"human\",\"content\":\"decided\"}\n{bad\n"), 3)
	f.Add([]byte("\n\n{}"), 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		n = max(1, min(n, 500))
		msgs, err := tailMessages(bytes.NewReader(data), int64(len(data)), n)
		if err != nil || len(msgs) > n {
			t.Fatalf("%d messages, err %v", len(msgs), err)
		}
		lines, _ := digest(msgs)
		_ = scoreAll(lines, activity{}, records.DefaultConfig().Triage.Thresholds)
	})
}

// Snippets made of characters that escaping multiplies still give a
// message under the cap.
func TestBlockMessageCap(t *testing.T) {
	amp := strings.Repeat("&", 150)
	var sentences []string
	for _, w := range []string{"decided", "failed", "cannot", "TODO", "prefer"} {
		for range 3 {
			sentences = append(sentences, w+" "+amp)
		}
	}
	dir := t.TempDir()
	path := writeTranscript(t, dir, spaced(sentences...))
	cfg := records.DefaultConfig().Triage
	cfg.MaxMessages = 200
	for c := range cfg.Thresholds {
		cfg.Thresholds[c] = 0.1
	}
	msg, err := Decide(context.Background(), Input{TranscriptPath: path, Cwd: dir},
		Options{Config: cfg, Home: dir, StateDir: dir, ContextDir: dir, Now: func() time.Time { return fixedNow }})
	if err != nil || strings.Count(msg, "- [") != 6 {
		t.Fatalf("want 6 categories, got %v:\n%s", err, msg)
	}
	if len(msg) > MaxMessage {
		t.Fatalf("message is %d bytes, cap %d", len(msg), MaxMessage)
	}
}

// The retry Claude Code sends after a block (stop_hook_active) goes
// through and removes the flag and the context files, so nothing is left
// to silence a later stop.
func TestLetThroughRetryClearsBlock(t *testing.T) {
	dir := t.TempDir()
	path := writeTranscript(t, dir, spaced("We decided on SQLite because it needs no server.", "We chose cron over a loop."))
	opts := Options{Home: dir, StateDir: dir, Now: func() time.Time { return fixedNow }}
	in := Input{SessionID: "s1", TranscriptPath: path}
	state := hookstate.Dir(dir, "s1")
	if msg, err := Decide(context.Background(), in, opts); err != nil || msg == "" {
		t.Fatalf("want a block, got %q %v", msg, err)
	}
	if _, err := os.Stat(ContextFile(state, Decision)); err != nil {
		t.Fatalf("context file not in the session's state: %v", err)
	}
	in.StopHookActive = true
	if msg, err := Decide(context.Background(), in, opts); err != nil || msg != "" {
		t.Fatalf("retry: want the stop through, got %q %v", msg, err)
	}
	if entries, _ := os.ReadDir(state); len(entries) != 0 {
		t.Fatalf("retry left %v in %s", entries, state)
	}
	// A new turn of the same session is triaged again at once.
	in.StopHookActive = false
	if msg, _ := Decide(context.Background(), in, opts); msg == "" {
		t.Fatal("the next turn's stop was silenced")
	}
	// Another session is never silenced by this one's block.
	other := Input{SessionID: "s2", TranscriptPath: path}
	if msg, _ := Decide(context.Background(), other, opts); msg == "" {
		t.Fatal("another session's stop was silenced")
	}
}

// A stale flag is removed, not left behind.
func TestStaleFlagRemoved(t *testing.T) {
	dir := t.TempDir()
	state := hookstate.Dir(dir, "s")
	if err := writeFlag(state, fixedNow.Add(-flagTTL)); err != nil {
		t.Fatal(err)
	}
	if consumeFreshFlag(state, fixedNow) {
		t.Fatal("a stale flag let the stop through")
	}
	if _, err := os.Stat(StopFlag(state)); !os.IsNotExist(err) {
		t.Fatalf("stale flag kept: %v", err)
	}
}

// The final reply arrives as last_assistant_message, possibly before it
// is in the transcript; it is triaged once either way.
func TestFinalReplyTriaged(t *testing.T) {
	dir := t.TempDir()
	path := writeTranscript(t, dir, spaced("Nothing of note here."))
	opts := Options{Home: dir, StateDir: dir, Now: func() time.Time { return fixedNow }}
	reply := "We decided on SQLite because it needs no server.\nWe chose cron over a loop because it is simpler."
	msg, err := Decide(context.Background(), Input{SessionID: "a", TranscriptPath: path, LastAssistantMessage: reply}, opts)
	if err != nil || !strings.Contains(msg, "[DECISION]") {
		t.Fatalf("final reply not triaged: %q %v", msg, err)
	}
	msgs := withFinalReply([]message{{Type: "assistant", Content: mustJSON(reply)}}, reply)
	if len(msgs) != 1 {
		t.Fatalf("a reply already in the transcript was counted twice: %d messages", len(msgs))
	}
	// Without a transcript, the reply alone is triaged.
	if msg, _ := Decide(context.Background(), Input{SessionID: "b", LastAssistantMessage: reply}, opts); !strings.Contains(msg, "[DECISION]") {
		t.Fatalf("reply without transcript not triaged: %q", msg)
	}
	// A transcript not written yet (a one-turn session, whose transcript
	// Claude Code writes after the Stop hooks) leaves the reply alone.
	unwritten := filepath.Join(dir, "not-yet.jsonl")
	if msg, err := Decide(context.Background(), Input{SessionID: "c", TranscriptPath: unwritten, LastAssistantMessage: reply}, opts); err != nil || !strings.Contains(msg, "[DECISION]") {
		t.Fatalf("reply with a transcript not written yet not triaged: %q %v", msg, err)
	}
	if _, err := Decide(context.Background(), Input{SessionID: "d", TranscriptPath: unwritten}, opts); err == nil {
		t.Fatal("a missing transcript without a final reply is not reported")
	}
}

func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}
