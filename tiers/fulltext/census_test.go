package fulltext

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

func TestOpenReadNeverBuilds(t *testing.T) {
	h := testHome(t)
	if _, err := OpenRead(h, time.Second); !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("missing index: %v", err)
	}
	if _, err := os.Stat(h.DBPath()); err == nil {
		t.Fatal("OpenRead built the index")
	}
	testutil.WriteFile(t, h.DBPath(), "not a database")
	if _, err := OpenRead(h, time.Second); !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("damaged index: %v", err)
	}
}

func TestCensusListingsAndFiles(t *testing.T) {
	h := testHome(t)
	openTest(t, h)
	ix, err := OpenRead(h, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	counts, err := ix.Census(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(counts)
	want := "[{records DECISION active 1} {records RUNBOOK retired 1} {reference DECISION active 1} {reference DECISION retired 1}]"
	if got != want {
		t.Errorf("census %s, want %s", got, want)
	}
	docs, total, err := ix.Documents(ctx, Listing{Dir: "memory/records", Category: "DECISION", Limit: 10})
	if err != nil || total != 1 || len(docs) != 1 || docs[0].Path != "memory/records/decisions/use-jwt.json" || docs[0].Title != "Use JWT for authentication" {
		t.Errorf("records listing: %+v %d %v", docs, total, err)
	}
	docs, total, err = ix.Documents(ctx, Listing{Dir: "memory/reference/decisions.md", Status: "retired", Limit: 10})
	if err != nil || total != 1 || docs[0].Line != 7 {
		t.Errorf("file listing: %+v %d %v", docs, total, err)
	}
	days, err := ix.LogLines(ctx)
	if err != nil || fmt.Sprint(days) != "[{2026-11-16 memory/sessions/2026-11-16.md 6} {2025-10-01 memory/archive/2025-10-01.md 3}]" {
		t.Errorf("log lines: %+v %v", days, err)
	}
	sizes, err := ix.FileSizes(ctx)
	if err != nil || sizes["memory/reference/decisions.md"] == 0 || len(sizes) != 7 {
		t.Errorf("file sizes: %v %v", sizes, err)
	}
}
