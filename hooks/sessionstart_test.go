package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
	"github.com/zylos/zylos-memory/internal/jsstring"
	"github.com/zylos/zylos-memory/internal/testutil"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

// answer runs an entry point on a home and returns its context text.
func answer(t *testing.T, ev Event, l tiers.Layout, stdin string) (text, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), ev, Options{
		Env:      Env{Layout: l, Now: func() time.Time { return c4fixture.Start }, Getenv: os.Getenv},
		Deadline: 5 * time.Second, // generous: these tests check content, not speed
		Stdin:    strings.NewReader(stdin), Stdout: &out, Stderr: &errOut,
	})
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut.String())
	}
	if out.Len() == 0 {
		return "", errOut.String()
	}
	var got contextOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("answer is not the hook JSON: %v\n%s", err, out.String())
	}
	if got.HookSpecificOutput.HookEventName != ev.Name {
		t.Errorf("hookEventName = %q, want %q", got.HookSpecificOutput.HookEventName, ev.Name)
	}
	text = got.HookSpecificOutput.AdditionalContext
	if n := jsstring.Len(text); n >= tiers.ContextLimit {
		t.Errorf("context is %d characters, want below %d", n, tiers.ContextLimit)
	}
	return text, errOut.String()
}

func TestSessionStart(t *testing.T) {
	tests := []struct {
		name       string
		home       c4fixture.Home
		wantStderr string
	}{
		{name: "fresh_home", home: c4fixture.Home{Convs: -1}},
		{name: "core_only", home: c4fixture.Home{Core: c4fixture.SampleCore, Convs: -1}},
		{name: "core_and_c4_under_threshold", home: c4fixture.Home{Core: c4fixture.SampleCore, Convs: 3}},
		{name: "core_and_c4_over_threshold", home: c4fixture.Home{Core: c4fixture.SampleCore, Convs: 31}},
		{name: "conversations_cut_oldest_first", home: c4fixture.Home{Core: c4fixture.SampleCore, Convs: 31, ConvSize: 2500}},
		{name: "core_cut_c4_dropped", home: c4fixture.Home{Core: strings.Repeat("A line of core memory.\n", 1000), Convs: 31, ConvSize: 2500}},
		{name: "corrupt_c4", home: c4fixture.Home{Core: c4fixture.SampleCore, CorruptC4: true}, wantStderr: "c4"},
		{name: "unreadable_core", home: c4fixture.Home{Core: "<dir>", Convs: 2}, wantStderr: "read core memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.home.Build(t)
			text, stderr := answer(t, SessionStart, l, `{"hook_event_name":"SessionStart","source":"startup"}`)
			testutil.Golden(t, filepath.Join("testdata", "session_start_"+tt.name+".golden"),
				[]byte(strings.ReplaceAll(text, l.ZylosDir, "/home/u/zylos")))
			if tt.wantStderr == "" && stderr != "" || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestUserPromptSubmit(t *testing.T) {
	tests := []struct {
		name      string
		convs     int
		threshold string
		want      string
	}{
		{"no_c4", -1, "", ""},
		{"at_threshold", 30, "", ""},
		{"threshold_from_env", 3, "2", "[Action Required] There are 3 unsummarized conversations (conversation id 1 ~ 3). Please invoke Memory Sync skill to process them: /memory sync --begin 1 --end 3"},
		{"bad_threshold_env_ignored", 3, "many", ""},
		{"over_threshold", 31, "", "[Action Required] There are 31 unsummarized conversations (conversation id 1 ~ 31). Please invoke Memory Sync skill to process them: /memory sync --begin 1 --end 31"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(thresholdEnv, tt.threshold)
			l := c4fixture.Home{Convs: tt.convs}.Build(t)
			text, stderr := answer(t, UserPromptSubmit, l, `{"prompt":"hello"}`)
			if text != tt.want || stderr != "" {
				t.Errorf("context %q stderr %q, want %q", text, stderr, tt.want)
			}
		})
	}
}

func TestFitSessionInit(t *testing.T) {
	init := c4sync.SessionInit{
		Head: "[Last Checkpoint Summary] s\n\n[Recent Conversations]\n",
		Records: []string{
			"[2026-03-15 10:00:00] IN (tg:1):\nfirst\n[2026-03-15 10:00:30] IN (tg:1): still first\n\n",
			"[2026-03-15 10:01:00] OUT (tg):\nsecond\n\n",
			"[2026-03-15 10:02:00] IN (tg:1):\nthird\n\n",
		},
		Tail:    "[Action Required] There are 31 unsummarized conversations.\n",
		Trigger: true,
	}
	text := init.String()
	for budget := 0; budget <= jsstring.Len(text)+1; budget++ {
		got := fitSessionInit(init, budget, "zylos-memory")
		if jsstring.Len(got) > budget {
			t.Fatalf("budget %d: got %d characters", budget, jsstring.Len(got))
		}
		if budget >= jsstring.Len(text) && got != text {
			t.Fatalf("budget %d: text within budget changed", budget)
		}
		if strings.Contains(got, "older of 3 recent") {
			if !strings.Contains(got, "[Action Required]") || !strings.HasPrefix(got, "[Last Checkpoint Summary]") {
				t.Fatalf("budget %d: cut lost the summary or trigger:\n%s", budget, got)
			}
			if strings.Contains(got, "third") == false {
				t.Fatalf("budget %d: newest record dropped before older ones:\n%s", budget, got)
			}
		}
	}
}
