package fulltext

import (
	"context"
	"os"
	"testing"
)

// TestIndexKeepsItsWALFiles: every prompt opens the index in a process of
// its own; creating the -wal and -shm files on each open and deleting them
// on each close cost more than the search.
func TestIndexKeepsItsWALFiles(t *testing.T) {
	h := testHome(t)
	for range 2 {
		ix := openTest(t, h)
		if hits := search(t, ix, Query{Text: "kangaroo"}); len(hits) == 0 {
			t.Fatal("no hits")
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{"-wal", "-shm"} {
			st, err := os.Stat(h.DBPath() + suffix)
			if err != nil {
				t.Fatalf("after close: %v", err)
			}
			if suffix == "-wal" && st.Size() > walSizeLimit {
				t.Errorf("-wal of %d bytes, limit %d", st.Size(), walSizeLimit)
			}
		}
	}
	// a rebuild replaces the files a stale -wal would otherwise replay into
	if err := Rebuild(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if hits := search(t, openTest(t, h), Query{Text: "kangaroo"}); len(hits) == 0 {
		t.Fatal("no hits after a rebuild")
	}
}
