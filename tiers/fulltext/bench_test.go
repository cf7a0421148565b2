package fulltext_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/fixture/benchtree"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers/fulltext"
)

func TestMain(m *testing.M) {
	code := m.Run()
	benchtree.Cleanup()
	os.Exit(code)
}

// largeIndex is the large home with its index built, once per run.
func largeIndex(b *testing.B) fulltext.Scope {
	b.Helper()
	h := fulltext.ScopeOf(benchtree.LargeHome(b), "", c4sync.OpenConversations)
	ix, err := fulltext.Open(context.Background(), h, fulltext.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ix.Close()
	return h
}

// benchQueries are what an agent asks: a few words, some common, some rare.
var benchQueries = []string{"kafka latency after the deploy", "postgres backup retry", "why did the billing webhook time out",
	"kalomi tarise vedafu", "session login quota"}

// BenchmarkSearchLarge: one search as a command runs it (open the index,
// quick update check, rank, close) on ten years of logs, 10,000 records
// and 1,000,000 C4 rows, warm (target < 10 ms).
func BenchmarkSearchLarge(b *testing.B) {
	h := largeIndex(b)
	i := 0
	cpu := cpuTime()
	defer func() { b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op") }()
	for b.Loop() {
		ix, _, err := fulltext.OpenFresh(context.Background(), h, fulltext.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Search(context.Background(), fulltext.Query{Text: benchQueries[i%len(benchQueries)], Limit: 10}); err != nil {
			b.Fatal(err)
		}
		ix.Close()
		i++
	}
}

// BenchmarkRebuildLarge: a full rebuild of the index of the large home
// (target < 60 s), and the index size against the size of what it covers.
func BenchmarkRebuildLarge(b *testing.B) {
	h := largeIndex(b)
	cpu := cpuTime()
	for b.Loop() {
		if err := fulltext.Rebuild(context.Background(), h); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	fi, err := os.Stat(h.DBPath())
	if err != nil {
		b.Fatal(err)
	}
	src := dirSize(h.Layout.SessionsDir()) + dirSize(h.Layout.RecordsDir()) + dirSize(h.Layout.ReferenceDir())
	c4, _ := os.Stat(h.Layout.C4DB())
	b.ReportMetric(float64(fi.Size())/(1<<20), "index-MB")
	b.ReportMetric(float64(src)/(1<<20), "files-MB")
	b.ReportMetric(float64(c4.Size())/(1<<20), "c4db-MB")
}

// BenchmarkUpdateAppendedLine: the incremental update after one line is
// appended to current.md (target < 5 ms).
func BenchmarkUpdateAppendedLine(b *testing.B) {
	h := largeIndex(b)
	ix, err := fulltext.Open(context.Background(), h, fulltext.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	f, err := os.OpenFile(h.Layout.CurrentSession(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for b.Loop() {
		if _, err := f.WriteString("**10:00** - appended a line about the zebra migration\n"); err != nil {
			b.Fatal(err)
		}
		// the file time must move past the racy window to be trusted; set
		// it rather than sleep, so the figure is the update alone
		at := time.Now().Add(-time.Second)
		os.Chtimes(h.Layout.CurrentSession(), at, at)
		st, err := ix.Update(context.Background(), false)
		if err != nil || st.Files != 1 {
			b.Fatal(err, st)
		}
	}
}

// cpuTime is the CPU time this process has used: on a shared machine the
// wall time of a benchmark also counts the time others held the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
