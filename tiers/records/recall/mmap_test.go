package recall

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/benchtree"
	"github.com/zylos/zylos-memory/tiers/records"
)

// TestScanMappedIndexShrunk: an index truncated in place under its mapping
// makes the scan fault past the new end; the fault must come back as
// ok false, so the caller reads the index the ordinary way, and never
// crash the hook.
func TestScanMappedIndexShrunk(t *testing.T) {
	h := newHome(t)
	// Enough lines that the index spans many pages: only a read of a page
	// wholly past the new end faults.
	benchtree.Records(t, h.root, 2000, benchtree.Mixed)
	path := filepath.Join(h.root, records.IndexFile)
	index, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(index) < 4*os.Getpagesize() {
		t.Fatalf("index of %d bytes spans too few pages to fault", len(index))
	}
	q := newQuery(Tokenize("kafka latency"))
	for _, tc := range []struct {
		name   string
		size   int64 // truncate the index to this many bytes; -1 leaves it
		wantOK bool
	}{
		{"intact", -1, true},
		{"shrunk to a few bytes", 16, false},
		{"emptied", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(path, index, 0o644); err != nil {
				t.Fatal(err)
			}
			data, unmap, ok := mapIndex(h.root)
			if !ok {
				t.Fatal("index not mapped")
			}
			defer unmap()
			if tc.size >= 0 {
				if err := os.Truncate(path, tc.size); err != nil {
					t.Fatal(err)
				}
			}
			var hits []Hit
			ok = scanMapped(data, func(text string) { hits = indexHits(h.root, text, q, 0) })
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v (%d hits)", ok, tc.wantOK, len(hits))
			}
			if ok && len(hits) == 0 {
				t.Fatal("intact index scanned with no hits")
			}
		})
	}
}

// TestScanMappedPassesOtherPanics: only a memory fault means the file
// changed; any other panic is a bug and must not be taken for one.
func TestScanMappedPassesOtherPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "bug" {
			t.Fatalf("recovered %v, want the scan's own panic", r)
		}
	}()
	scanMapped([]byte("x"), func(string) { panic("bug") })
	t.Fatal("scanMapped returned after a panic")
}

// TestMapIndexUnmappable: with no index or an empty one there is nothing
// to map, and the caller rebuilds or reads it instead.
func TestMapIndexUnmappable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		index *string // nil: no index file
	}{
		{"missing", nil},
		{"empty", new(string)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			if tc.index != nil {
				if err := os.WriteFile(filepath.Join(h.root, records.IndexFile), []byte(*tc.index), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, _, ok := mapIndex(h.root); ok {
				t.Fatal("mapped an index that is not there")
			}
		})
	}
}

// TestRecordHitsIndexRenamedWhileMapped: a write replaces the index by
// rename, so a mapping taken before it keeps reading the old file intact,
// and the next retrieval sees the new one.
func TestRecordHitsIndexRenamedWhileMapped(t *testing.T) {
	h := newHome(t)
	h.write(t, rec{cat: "decision", id: "kafka-retention", title: "Kafka retention is seven days",
		tags: []string{"kafka"}})
	h.rebuild(t)
	path := filepath.Join(h.root, records.IndexFile)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, unmap, ok := mapIndex(h.root)
	if !ok {
		t.Fatal("index not mapped")
	}
	defer unmap()

	h.write(t, rec{cat: "constraint", id: "kafka-partitions", title: "Kafka topics keep twelve partitions",
		tags: []string{"kafka"}})
	h.rebuild(t)
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, after) {
		t.Fatal("rebuild rewrote the index in place; this test needs a rename")
	}

	q := newQuery(Tokenize("kafka"))
	var old []Hit
	if !scanMapped(data, func(text string) { old = indexHits(h.root, text, q, 0) }) {
		t.Fatal("old mapping faulted after a rename")
	}
	if got, want := hitTitles(old), []string{"Kafka retention is seven days"}; !slices.Equal(got, want) {
		t.Errorf("old mapping: hits %q, want %q", got, want)
	}
	want := []string{"Kafka retention is seven days", "Kafka topics keep twelve partitions"}
	if got := hitTitles(recordHits(h.root, q, nil, 0)); !slices.Equal(got, want) {
		t.Errorf("recordHits: %q, want %q", got, want)
	}
	out := h.retrieve(t, "what did we decide about kafka?")
	for _, title := range want {
		if !strings.Contains(out, title) {
			t.Errorf("Retrieve lacks %q:\n%s", title, out)
		}
	}
}

// hitTitles are the titles of hits, sorted.
func hitTitles(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Title)
	}
	slices.Sort(out)
	return out
}
