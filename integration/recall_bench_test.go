package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/fixture/benchtree"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// BenchmarkRecallRetrieveProcess: the UserPromptSubmit hook as a whole
// process over 10,000 records and 1,000 markdown entries (target < 20 ms).
func BenchmarkRecallRetrieveProcess(b *testing.B) {
	benchRetrieveProcess(b, "why is the kafka queue latency so high after the deploy?", "kafka")
}

// BenchmarkRecallRetrieveProcessFewMatches: the same hook for a prompt
// that, like most real prompts, matches only a handful of index lines.
func BenchmarkRecallRetrieveProcessFewMatches(b *testing.B) {
	benchRetrieveProcess(b, "what happened with ticket 4242 and the grafana routing yesterday?", "note 4242")
}

// benchRetrieveProcess times `records retrieve` for prompt over 10,000
// records and 1,000 markdown entries, after checking its answer names want.
func benchRetrieveProcess(b *testing.B, prompt, want string) {
	zd := benchtree.Home(b, 10000, 1000).ZylosDir
	run := testutil.Run{ZylosDir: zd, Stdin: `{"prompt":"` + prompt + `"}`}
	if res := run.Exec(b, "reindex"); res.Code != 0 {
		b.Fatalf("reindex: %+v", res)
	}
	if res := run.Exec(b, "records", "retrieve"); res.Code != 0 || !strings.Contains(res.Stdout, want) {
		b.Fatalf("exit %d stdout %q stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	b.ResetTimer()
	for b.Loop() {
		run.Exec(b, "records", "retrieve")
	}
}

// BenchmarkRecallCandidateProcess: candidate selection as a whole process
// over 10,000 records (target < 20 ms).
func BenchmarkRecallCandidateProcess(b *testing.B) {
	zd := benchtree.Home(b, 10000, 0).ZylosDir
	run := testutil.Run{ZylosDir: zd}
	args := []string{"records", "candidate", "--category", "decision", "--new-info", "kafka queue latency after deploy"}
	if res := run.Exec(b, args...); res.Code != 0 || !strings.Contains(res.Stdout, `"candidate": {`) {
		b.Fatalf("exit %d stdout %q stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	b.ResetTimer()
	for b.Loop() {
		run.Exec(b, args...)
	}
}

// BenchmarkRecallSearchProcess: on-demand search of the active records and
// the reference tier, for comparison with retrieve.
func BenchmarkRecallSearchProcess(b *testing.B) {
	zd := benchtree.Home(b, 10000, 1000).ZylosDir
	run := testutil.Run{ZylosDir: zd}
	if res := run.Exec(b, "reindex"); res.Code != 0 {
		b.Fatalf("reindex: %+v", res)
	}
	b.ResetTimer()
	for b.Loop() {
		run.Exec(b, "records", "search", "kafka", "latency")
	}
}

// BenchmarkSearchProcessLarge: `zylos-memory search` as a whole process on
// ten years of daily logs, 10,000 records and 1,000,000 C4 rows, with a
// warm index (target < 25 ms).
func BenchmarkSearchProcessLarge(b *testing.B) {
	zd := benchtree.LargeHome(b).ZylosDir
	run := testutil.Run{ZylosDir: zd}
	if res := (testutil.Run{ZylosDir: zd, Timeout: 10 * time.Minute}).Exec(b, "reindex"); res.Code != 0 {
		b.Fatalf("reindex: %+v", res)
	}
	queries := []string{"kafka latency after the deploy", "postgres backup retry", "why did the billing webhook time out"}
	cpu := testutil.StartChildCPU(b)
	i := 0
	for b.Loop() {
		if res := run.Exec(b, "search", queries[i%len(queries)]); res.Code != 0 {
			b.Fatalf("%+v", res)
		}
		i++
	}
	cpu.Report()
}
