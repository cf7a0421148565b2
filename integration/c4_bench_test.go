package integration

import (
	"path/filepath"
	"testing"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// benchC4 runs the real binary with args b.N times on a home whose C4
// database holds n conversations of about 100 bytes.
func benchC4(b *testing.B, n int, args ...string) {
	dir := filepath.Join(b.TempDir(), "zylos")
	c4fixture.Create(b, filepath.Join(dir, "comm-bridge", "c4.db"), n, 100)
	r := testutil.Run{ZylosDir: dir}
	testutil.Binary(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := r.Exec(b, args...); res.Code != 0 {
			b.Fatalf("%v: exit %d: %s", args, res.Code, res.Stderr)
		}
	}
}

func BenchmarkC4Fetch10k(b *testing.B) {
	benchC4(b, 10_000, "c4", "fetch", "--begin", "1", "--end", "10000")
}

func BenchmarkC4SessionInit(b *testing.B) { benchC4(b, 10_000, "c4", "session-init") }

func BenchmarkC4ThresholdCheck(b *testing.B) { benchC4(b, 10_000, "c4", "threshold-check") }

func BenchmarkC4Unsummarized(b *testing.B) { benchC4(b, 10_000, "c4", "unsummarized") }
