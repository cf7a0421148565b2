package c4sync

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestLedger(t *testing.T) {
	l := Ledger{Path: filepath.Join(t.TempDir(), ".state", "c4-fetched.json")}
	steps := []struct {
		record     [2]int64
		begin, end int64
		gap        int64
		open       bool
	}{
		{[2]int64{1, 3}, 1, 3, 0, false},
		{[2]int64{5, 6}, 1, 6, 4, true},
		{[2]int64{4, 4}, 1, 6, 0, false},
		{[2]int64{8, 9}, 2, 9, 7, true},
	}
	for _, s := range steps {
		if err := l.Record("db", s.record[0], s.record[1]); err != nil {
			t.Fatal(err)
		}
		gap, open, err := l.Unfetched("db", s.begin, s.end)
		if err != nil || gap != s.gap || open != s.open {
			t.Errorf("after %v: Unfetched(%d,%d) = %d %v %v", s.record, s.begin, s.end, gap, open, err)
		}
	}
	if _, open, _ := l.Unfetched("other", 1, 1); !open {
		t.Error("ranges leaked to another database")
	}
	if err := l.Forget("db", 8); err != nil {
		t.Fatal(err)
	}
	if gap, open, _ := l.Unfetched("db", 9, 9); open {
		t.Errorf("Forget dropped 9 (gap %d)", gap)
	}
	if _, open, _ := l.Unfetched("db", 6, 6); !open {
		t.Error("Forget kept 6")
	}
}

// TestLedgerConcurrentRecords checks that parallel records lose nothing.
func TestLedgerConcurrentRecords(t *testing.T) {
	l := Ledger{Path: filepath.Join(t.TempDir(), "c4-fetched.json")}
	var wg sync.WaitGroup
	for i := int64(0); i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Record("db", i*10+1, i*10+10); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if gap, open, err := l.Unfetched("db", 1, 200); open || err != nil {
		t.Errorf("gap at %d (%v)", gap, err)
	}
}

func TestLedgerCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c4-fetched.json")
	os.WriteFile(path, []byte("{not json"), 0o644)
	l := Ledger{Path: path}
	if _, _, err := l.Unfetched("db", 1, 1); err == nil {
		t.Fatal("corrupt ledger accepted")
	}
	if err := l.Record("db", 1, 2); err == nil {
		t.Fatal("corrupt ledger overwritten")
	}
	if data, _ := os.ReadFile(path); string(data) != "{not json" {
		t.Errorf("corrupt ledger changed: %q", data)
	}
}

// FuzzLedger feeds arbitrary ledger files: reading never panics, and a
// file the ledger accepts and updates stays one it can read.
func FuzzLedger(f *testing.F) {
	f.Add([]byte(`{"fetched":{"db":[{"begin":1,"end":3}]}}`))
	f.Add([]byte(`{"fetched":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "c4-fetched.json")
		os.WriteFile(path, data, 0o644)
		l := Ledger{Path: path}
		if _, _, err := l.Unfetched("db", 1, 10); err != nil {
			return
		}
		if err := l.Record("db", 4, 6); err != nil {
			t.Fatal(err)
		}
		if _, _, err := l.Unfetched("db", 4, 6); err != nil {
			t.Fatalf("ledger unreadable after an update: %v", err)
		}
	})
}
