package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/records"
)

// benchWords make titles and tags that overlap the way real memory does:
// every prompt matches hundreds of entries, so ranking does real work.
var benchWords = strings.Fields(`kafka postgres redis deploy auth token cache queue schema migration
	billing invoice worker cron backup metrics alert latency retry timeout webhook gateway search
	index shard replica tenant quota upload storage session login`)

// recallBenchHome builds a zylos home with n records (index built) and m
// markdown entries in the reference tier.
func recallBenchHome(b *testing.B, n, m int) string {
	b.Helper()
	zd := filepath.Join(b.TempDir(), "zylos")
	root := filepath.Join(zd, "memory", "records")
	cats := []string{"decision", "constraint", "runbook", "tech_debt", "preference", "session_summary"}
	for i := range n {
		cat := cats[i%len(cats)]
		w := func(k int) string { return benchWords[(i*7+k*13)%len(benchWords)] }
		id := fmt.Sprintf("%s-%s-%05d", w(0), w(1), i)
		data, _ := json.Marshal(map[string]any{
			"schema_version": "1.0", "category": cat, "id": id,
			"title":      fmt.Sprintf("%s %s %s note %d", w(0), w(1), w(2), i),
			"created_at": "2026-01-01T00:00:00Z", "updated_at": fmt.Sprintf("2026-03-%02dT00:00:00Z", 1+i%14),
			"tags": []string{w(3), w(4)}, "record_status": "active", "content": map[string]any{"x": i},
		})
		p := filepath.Join(root, records.Folder(cat), id+".json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := records.RebuildIndex(root, nil); err != nil {
		b.Fatal(err)
	}
	ref := filepath.Join(zd, "memory", "reference")
	os.MkdirAll(ref, 0o755)
	var dec, notes strings.Builder
	dec.WriteString("# Decisions\n\n")
	notes.WriteString("# Notes\n\n")
	for i := range m {
		w := func(k int) string { return benchWords[(i*5+k*11)%len(benchWords)] }
		if i%2 == 0 {
			fmt.Fprintf(&dec, "### [2026-02-%02d] %s over %s %d\n- **Decision:** use %s\n- **Status:** active\n\n",
				1+i%28, w(0), w(1), i, w(2))
		} else {
			fmt.Fprintf(&notes, "### %s and %s %d\n\nSome text about %s.\n\n", w(0), w(1), i, w(2))
		}
	}
	os.WriteFile(filepath.Join(ref, "decisions.md"), []byte(dec.String()), 0o644)
	os.WriteFile(filepath.Join(ref, "notes.md"), []byte(notes.String()), 0o644)
	return zd
}

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
	zd := recallBenchHome(b, 10000, 1000)
	run := testutil.Run{ZylosDir: zd, Stdin: `{"prompt":"` + prompt + `"}`}
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
	zd := recallBenchHome(b, 10000, 0)
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
	zd := recallBenchHome(b, 10000, 1000)
	run := testutil.Run{ZylosDir: zd}
	b.ResetTimer()
	for b.Loop() {
		run.Exec(b, "records", "search", "kafka", "latency")
	}
}
