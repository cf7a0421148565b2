package c4sync

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/zylos/zylos-memory/tiers"
)

// bigDBs caches the million-row databases: building one takes seconds.
var (
	bigOnce sync.Once
	bigDir  string
	bigErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if bigDir != "" {
		os.RemoveAll(bigDir)
	}
	os.Exit(code)
}

const bigRows = 1_000_000

// bigDB returns a read-only C4 database of 1,000,000 conversations whose
// latest checkpoint ends at checkpointEnd (0: the initial one only).
func bigDB(b *testing.B, checkpointEnd int64) *DB {
	b.Helper()
	bigOnce.Do(func() { bigDir, bigErr = buildBig() })
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	name := "all.db"
	if checkpointEnd > 0 {
		name = "recent.db"
	}
	db, err := Open(filepath.Join(bigDir, name))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// buildBig writes all.db (everything unsummarized) and recent.db (a
// checkpoint 50 rows short of the end, the everyday case).
func buildBig() (string, error) {
	dir, err := os.MkdirTemp("", "c4-bench-")
	if err != nil {
		return "", err
	}
	all := filepath.Join(dir, "all.db")
	if _, err := Create(all); err != nil {
		return dir, err
	}
	db, err := OpenWrite(all)
	if err != nil {
		return dir, err
	}
	_, err = db.sql.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
 INSERT INTO conversations (timestamp, direction, channel, endpoint_id, content)
 SELECT '2026-03-15 09:00:00', CASE i % 2 WHEN 1 THEN 'in' ELSE 'out' END, 'telegram', '8101553026',
  'message ' || i || ' with a sentence of ordinary length for a chat' FROM n`, bigRows)
	db.Close()
	if err != nil {
		return dir, err
	}
	data, err := os.ReadFile(all)
	if err != nil {
		return dir, err
	}
	recent := filepath.Join(dir, "recent.db")
	if err := os.WriteFile(recent, data, 0o644); err != nil {
		return dir, err
	}
	db, err = OpenWrite(recent)
	if err != nil {
		return dir, err
	}
	defer db.Close()
	s := "benchmark"
	_, err = db.CreateCheckpoint(bigRows-50, &s)
	return dir, err
}

func BenchmarkUnsummarized1M(b *testing.B) {
	for _, c := range []struct {
		name string
		end  int64
	}{{"50-unsummarized", bigRows - 50}, {"all-unsummarized", 0}} {
		b.Run(c.name, func(b *testing.B) {
			db := bigDB(b, c.end)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := db.Unsummarized(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkThresholdCheck1M(b *testing.B) {
	db := bigDB(b, bigRows-50)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := db.ThresholdCheck(tiers.KindV2, tiers.KindV2.SyncThreshold); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSessionInit1M(b *testing.B) {
	db := bigDB(b, bigRows-50)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := db.SessionInit(tiers.KindV2, tiers.KindV2.SyncThreshold, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpenSessionInit1M(b *testing.B) {
	bigDB(b, bigRows-50)
	path := filepath.Join(bigDir, "recent.db")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.SessionInit(tiers.KindV2, tiers.KindV2.SyncThreshold, ""); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

func BenchmarkFetch10k(b *testing.B) {
	db := newDB(b)
	addConversations(b, db, 10_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := db.Fetch(1, 10_000); err != nil {
			b.Fatal(err)
		}
	}
}
