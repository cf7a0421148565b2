package hooks

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
	"github.com/zylos/zylos-memory/tiers"
)

// BenchmarkSessionStartInProcess is the entry point's own cost, without
// process start-up: core.md plus a C4 database of 1,000 conversations.
func BenchmarkSessionStartInProcess(b *testing.B) {
	benchEntryPoint(b, SessionStart, `{"hook_event_name":"SessionStart","source":"startup"}`)
}

// BenchmarkSessionStartV07InProcess: a v0.7 home (identity, state and
// references of 4 KB each, the v0.7 framing) and the same C4 database.
func BenchmarkSessionStartV07InProcess(b *testing.B) {
	l := c4fixture.Home{Convs: 1000, ConvSize: 200}.Build(b)
	for _, name := range []string{"identity.md", "state.md", "references.md"} {
		os.WriteFile(filepath.Join(l.MemoryDir(), name), []byte("# "+name+"\n"+strings.Repeat("- a line of memory, forty bytes long..\n", 100)), 0o644)
	}
	runEntryPoint(b, l, SessionStart, `{"hook_event_name":"SessionStart","source":"startup"}`)
}

// BenchmarkUserPromptSubmitInProcess: threshold check plus retrieval.
func BenchmarkUserPromptSubmitInProcess(b *testing.B) {
	benchEntryPoint(b, UserPromptSubmit, `{"prompt":"what did we decide about the database?"}`)
}

func benchEntryPoint(b *testing.B, ev Event, stdin string) {
	runEntryPoint(b, c4fixture.Home{Core: c4fixture.SampleCore, Convs: 1000, ConvSize: 200}.Build(b), ev, stdin)
}

func runEntryPoint(b *testing.B, l tiers.Layout, ev Event, stdin string) {
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
