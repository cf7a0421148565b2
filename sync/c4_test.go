package c4sync

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers"
)

func TestSessionInitBranches(t *testing.T) {
	tests := []struct {
		name      string
		rows      int
		threshold int
		summary   bool
	}{
		{"empty", 0, 30, true},
		{"under", 3, 30, true},
		{"at-threshold", 4, 4, false},
		{"over", 8, 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := newDB(t)
			if !tt.summary {
				if _, err := db.sql.Exec(`UPDATE checkpoints SET summary = NULL`); err != nil {
					t.Fatal(err)
				}
			}
			addConversations(t, db, tt.rows)
			got, err := db.SessionInit(tiers.KindV2, tt.threshold, "")
			if err != nil {
				t.Fatal(err)
			}
			check, err := db.ThresholdCheck(tiers.KindV2, tt.threshold)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, "testdata/session-init-"+tt.name+".golden", []byte(got.String()+"--- threshold-check\n"+check))
		})
	}
}

func TestUnsummarizedAfterCheckpoint(t *testing.T) {
	db := newDB(t)
	r, err := db.Unsummarized()
	if err != nil || r.Count != 0 || r.Begin != nil {
		t.Fatalf("empty: %+v %v", r, err)
	}
	addConversations(t, db, 10)
	s := "done"
	if _, err := db.CreateCheckpoint(4, &s); err != nil {
		t.Fatal(err)
	}
	r, err = db.Unsummarized()
	if err != nil || r.Count != 6 || *r.Begin != 5 || *r.End != 10 {
		t.Fatalf("after checkpoint: %+v %v", r, err)
	}
	if _, err := db.CreateCheckpoint(3, nil); !errors.Is(err, ErrCheckpointRange) {
		t.Fatalf("backwards checkpoint: %v", err)
	}
}

func TestEnqueueAndPending(t *testing.T) {
	db := newDB(t)
	m := Message{Channel: "system", Content: "sync please", Priority: 1}
	if ok, err := db.HasPending(m.Content); err != nil || ok {
		t.Fatalf("pending before: %v %v", ok, err)
	}
	id, err := db.Enqueue(m)
	if err != nil || id != 1 {
		t.Fatalf("enqueue: %d %v", id, err)
	}
	if ok, err := db.HasPending(m.Content); err != nil || !ok {
		t.Fatalf("pending after: %v %v", ok, err)
	}
	for _, bad := range []Message{{Channel: "", Content: "x", Priority: 1}, {Channel: "c", Priority: 1}, {Channel: "c", Content: "x", Priority: 4}} {
		if _, err := db.Enqueue(bad); !errors.Is(err, ErrMessage) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.db")
	os.WriteFile(corrupt, []byte(strings.Repeat("not a database ", 100)), 0o644)
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o644)
	tests := []struct{ path, want string }{
		{filepath.Join(dir, "missing.db"), "c4 database not found"},
		{corrupt, "corrupt or not a database"},
		{empty, "no conversations/checkpoints tables"},
	}
	for _, tt := range tests {
		_, err := Open(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%s) = %v, want %q", filepath.Base(tt.path), err, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !os.IsNotExist(err) {
		t.Error("Open created a missing database")
	}
}

// TestUnsummarizedCountWithGaps checks both ways of counting against
// deleted ids: the direct scan and the total-minus-summarized one.
func TestUnsummarizedCountWithGaps(t *testing.T) {
	db := newDB(t)
	addConversations(t, db, 10)
	if _, err := db.sql.Exec(`DELETE FROM conversations WHERE id IN (2, 8)`); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ after, count, begin int64 }{{0, 8, 1}, {1, 7, 3}, {3, 6, 4}, {7, 2, 9}, {10, 0, 0}} {
		r, err := db.rangeAfter(tt.after)
		if err != nil || r.Count != tt.count || (r.Begin != nil && *r.Begin != tt.begin) || (r.Begin == nil) != (tt.count == 0) {
			t.Errorf("after %d: %+v %v, want count %d", tt.after, r, err, tt.count)
		}
	}
}

// TestCreateSweepsStaleTemps checks that a temp database left by a killed
// Create is removed, while a fresh one (a Create in progress) stays.
func TestCreateSweepsStaleTemps(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".c4.db.tmp-1")
	fresh := filepath.Join(dir, ".c4.db.tmp-2")
	os.WriteFile(stale, nil, 0o644)
	os.WriteFile(fresh, nil, 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	if created, err := Create(filepath.Join(dir, "c4.db")); err != nil || !created {
		t.Fatalf("Create: %v %v", created, err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("stale temp database kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("fresh temp database removed")
	}
}

func TestCheckpointAfterLargestIDIsRefused(t *testing.T) {
	db := newDB(t)
	if _, err := db.CreateCheckpoint(math.MaxInt64, nil); err != nil {
		t.Fatal(err)
	}
	for _, end := range []int64{5, math.MaxInt64} {
		if c, err := db.CreateCheckpoint(end, nil); !errors.Is(err, ErrCheckpointRange) {
			t.Fatalf("checkpoint %d after the largest id: %+v, %v", end, c, err)
		}
	}
	if _, err := ParseID("9223372036854775808"); err == nil || !strings.Contains(err.Error(), "past the largest id") {
		t.Fatalf("ParseID past int64: %v", err)
	}
}

func TestUnfetchedUpToLargestID(t *testing.T) {
	l := Ledger{Path: filepath.Join(t.TempDir(), "ledger.json")}
	if err := l.Record("db", 1, math.MaxInt64); err != nil {
		t.Fatal(err)
	}
	if id, missing, err := l.Unfetched("db", 1, math.MaxInt64); err != nil || missing {
		t.Fatalf("Unfetched = %d, %v, %v; want the whole range fetched", id, missing, err)
	}
}

// TestSyncRequestPending checks that the matcher recognises the trigger line
// of either layout, whatever its range, and nothing else.
func TestSyncRequestPending(t *testing.T) {
	b, e := int64(3), int64(40)
	r := Range{Begin: &b, End: &e, Count: 38}
	for _, kind := range []*tiers.Kind{tiers.KindV2, tiers.KindV07} {
		db := newDB(t)
		if _, err := db.Enqueue(Message{Channel: "system", Priority: 1, Content: "[Action Required] please reply"}); err != nil {
			t.Fatal(err)
		}
		if pending, err := db.SyncRequestPending("system"); err != nil || pending {
			t.Fatalf("%s: another action request counted as a sync request (%v)", kind, err)
		}
		if _, err := db.Enqueue(Message{Channel: "system", Priority: 1, Content: TriggerLine(kind, r)}); err != nil {
			t.Fatal(err)
		}
		if pending, err := db.SyncRequestPending("telegram"); err != nil || pending {
			t.Fatalf("%s: a request on another channel counted (%v)", kind, err)
		}
		if pending, err := db.SyncRequestPending("system"); err != nil || !pending {
			t.Fatalf("%s: the trigger line %q is not recognised (%v)", kind, TriggerLine(kind, r), err)
		}
	}
}
