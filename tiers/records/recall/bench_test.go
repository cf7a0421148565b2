package recall

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var benchWords = strings.Fields(`kafka postgres redis deploy auth token cache queue schema migration
	billing invoice worker cron backup metrics alert latency retry timeout webhook gateway search
	index shard replica tenant quota upload storage session login`)

// benchHome is a home with n records in the index (files for the deep
// check included) and m markdown entries.
func benchHome(b *testing.B, n, m int) home {
	h := newHome(b)
	cats := []string{"decision", "constraint", "runbook", "tech_debt", "preference", "session_summary"}
	for i := range n {
		w := func(k int) string { return benchWords[(i*7+k*13)%len(benchWords)] }
		h.write(b, rec{cat: cats[i%len(cats)], id: fmt.Sprintf("%s-%s-%05d", w(0), w(1), i),
			title: fmt.Sprintf("%s %s %s note %d", w(0), w(1), w(2), i), tags: []string{w(3), w(4)},
			updated: now.AddDate(0, 0, -(i % 60))})
	}
	h.rebuild(b)
	var dec strings.Builder
	dec.WriteString("# Decisions\n\n")
	for i := range m {
		w := func(k int) string { return benchWords[(i*5+k*11)%len(benchWords)] }
		fmt.Fprintf(&dec, "### [2026-02-%02d] %s over %s %d\n- **Decision:** use %s\n\n", 1+i%28, w(0), w(1), i, w(2))
	}
	os.WriteFile(filepath.Join(h.layout.ReferenceDir(), "decisions.md"), []byte(dec.String()), 0o644)
	return h
}

// BenchmarkRetrieve is the in-process cost of one prompt over 10,000
// records and 1,000 markdown entries.
func BenchmarkRetrieve(b *testing.B) {
	h := benchHome(b, 10000, 1000)
	opts := RetrieveOptions{Prompt: "why is the kafka queue latency so high after the deploy?", Root: h.root,
		Layout: h.layout, Now: now}
	for b.Loop() {
		if out, err := Retrieve(b.Context(), opts); err != nil || out == "" {
			b.Fatal(err, out)
		}
	}
}

// BenchmarkSelectCandidate is one candidate selection over 10,000 records.
func BenchmarkSelectCandidate(b *testing.B) {
	h := benchHome(b, 10000, 0)
	opts := CandidateOptions{Root: h.root, Category: "decision", NewInfo: "kafka queue latency after deploy"}
	for b.Loop() {
		if _, err := SelectCandidate(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRetrieveFewMatches is one prompt over the same tree that, like
// most real prompts, matches only a handful of its lines.
func BenchmarkRetrieveFewMatches(b *testing.B) {
	h := benchHome(b, 10000, 1000)
	opts := RetrieveOptions{Prompt: "what happened with ticket 4242 and the grafana routing yesterday?", Root: h.root,
		Layout: h.layout, Now: now}
	for b.Loop() {
		if out, err := Retrieve(b.Context(), opts); err != nil || !strings.Contains(out, "note 4242") {
			b.Fatal(err, out)
		}
	}
}
