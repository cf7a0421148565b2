package recall

import (
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/fixture/benchtree"
)

// benchHome is the tree of the whole-process recall benchmarks: n records
// in the index (files for the deep check included) and m markdown entries.
func benchHome(b *testing.B, n, m int) home {
	l := benchtree.Home(b, n, m)
	return home{layout: l, root: l.RecordsDir()}
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
