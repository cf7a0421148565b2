// Package benchtree builds synthetic memory trees for benchmarks and tests:
// record files with their index and markdown entries in the reference
// tier, written straight to disk because they are the input of what is
// measured, not its subject. Every benchmark of a tree of a given size
// gets the same tree, so figures taken in-process and over the whole
// binary stay comparable.
package benchtree

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/records"
)

// words make titles and tags that overlap the way real memory does:
// every prompt matches hundreds of entries, so ranking does real work.
var words = strings.Fields(`kafka postgres redis deploy auth token cache queue schema migration
	billing invoice worker cron backup metrics alert latency retry timeout webhook gateway search
	index shard replica tenant quota upload storage session login`)

// mixedCategories are the categories Mixed cycles through.
var mixedCategories = []string{"decision", "constraint", "runbook", "tech_debt", "preference", "session_summary"}

// Home is a zylos home in a temp dir with n Mixed records, their index,
// and m markdown entries in the reference tier.
func Home(tb testing.TB, n, m int) tiers.Layout {
	tb.Helper()
	l := tiers.Layout{ZylosDir: filepath.Join(tb.TempDir(), "zylos")}
	Records(tb, l.RecordsDir(), n, Mixed)
	Entries(tb, l, m)
	return l
}

// Records writes records 0 to n-1 made by rec under root and builds their
// index; with n 0 root is made but holds no index, as before the first
// write.
func Records(tb testing.TB, root string, n int, rec func(i int) records.Record) {
	tb.Helper()
	if err := os.MkdirAll(root, 0o755); err != nil {
		tb.Fatal(err)
	}
	if n == 0 {
		return
	}
	for i := range n {
		Write(tb, root, rec(i))
	}
	if _, err := records.RebuildIndex(root, nil); err != nil {
		tb.Fatal(err)
	}
}

// Write stores r as its record file under root, without touching the
// index, and returns the file's path.
func Write(tb testing.TB, root string, r records.Record) string {
	tb.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(root, records.Folder(r.Category), r.ID+".json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// Mixed is record i of a tree of every category, whose titles and tags
// are drawn from a vocabulary of 32 words and updated within two weeks.
func Mixed(i int) records.Record {
	w := func(k int) string { return words[(i*7+k*13)%len(words)] }
	return records.Record{
		SchemaVersion: "1.0", Category: mixedCategories[i%len(mixedCategories)],
		ID: fmt.Sprintf("%s-%s-%05d", w(0), w(1), i), Title: fmt.Sprintf("%s %s %s note %d", w(0), w(1), w(2), i),
		RecordStatus: records.StatusActive, Tags: []string{w(3), w(4)},
		CreatedAt: "2026-01-01T00:00:00Z", UpdatedAt: fmt.Sprintf("2026-03-%02dT00:00:00Z", 1+i%14),
		Content: map[string]any{"x": i},
	}
}

// Decision is record i of a tree of decisions spread over 97 topics, each
// tagged with its topic ("topic-42") and "bench".
func Decision(i int) records.Record {
	return records.Record{
		SchemaVersion: "1.0", Category: "decision",
		ID: fmt.Sprintf("decision-%05d", i), Title: fmt.Sprintf("Decision number %d about topic %d", i, i%97),
		RecordStatus: records.StatusActive, Tags: []string{fmt.Sprintf("topic-%d", i%97), "bench"},
		CreatedAt: "2026-01-01T00:00:00Z", UpdatedAt: "2026-01-01T00:00:00Z",
		Content: map[string]any{"status": "accepted", "context": "c", "decision": "d", "rationale": []string{"r"}},
	}
}

// Entries writes m markdown entries drawn from the same vocabulary into
// the reference tier of l: the even ones as dated decisions in
// decisions.md, the odd ones as notes in notes.md.
func Entries(tb testing.TB, l tiers.Layout, m int) {
	tb.Helper()
	var dec, notes strings.Builder
	dec.WriteString("# Decisions\n\n")
	notes.WriteString("# Notes\n\n")
	for i := range m {
		w := func(k int) string { return words[(i*5+k*11)%len(words)] }
		if i%2 == 0 {
			fmt.Fprintf(&dec, "### [2026-02-%02d] %s over %s %d\n- **Decision:** use %s\n- **Status:** active\n\n",
				1+i%28, w(0), w(1), i, w(2))
		} else {
			fmt.Fprintf(&notes, "### %s and %s %d\n\nSome text about %s.\n\n", w(0), w(1), i, w(2))
		}
	}
	if err := os.MkdirAll(l.ReferenceDir(), 0o755); err != nil {
		tb.Fatal(err)
	}
	for name, text := range map[string]string{"decisions.md": dec.String(), "notes.md": notes.String()} {
		if err := os.WriteFile(filepath.Join(l.ReferenceDir(), name), []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
