package hooks

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// BenchmarkSessionStartInProcess is the entry point's own cost, without
// process start-up: core.md plus a C4 database of 1,000 conversations.
func BenchmarkSessionStartInProcess(b *testing.B) {
	benchEntryPoint(b, SessionStart, `{"hook_event_name":"SessionStart","source":"startup"}`)
}

// BenchmarkUserPromptSubmitInProcess: threshold check plus retrieval.
func BenchmarkUserPromptSubmitInProcess(b *testing.B) {
	benchEntryPoint(b, UserPromptSubmit, `{"prompt":"what did we decide about the database?"}`)
}

func benchEntryPoint(b *testing.B, ev Event, stdin string) {
	l := home{core: sampleCore, convs: 1000, convSize: 200}.build(b)
	opts := Options{
		Env:      Env{Layout: l, Now: time.Now},
		Deadline: 5 * time.Second,
		Stdout:   io.Discard, Stderr: io.Discard,
	}
	for b.Loop() {
		opts.Stdin = strings.NewReader(stdin)
		if code := Run(context.Background(), ev, opts); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
