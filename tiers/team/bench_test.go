package team

import (
	"fmt"
	"testing"

	"github.com/zylos/zylos-memory/tiers/records"
)

// A sync when nothing changed anywhere: what the service pays each
// minute (a fetch, a read of the records, no commit, no push).
func BenchmarkSyncNothingNew(b *testing.B) {
	remote := bareRemote(b)
	a, m := newTestHome(b, "a", remote), newTestHome(b, "m", remote)
	for i := 0; i < 100; i++ {
		a.save(records.ActionCreate, fmt.Sprintf("a-%03d", i), fmt.Sprintf("A decision %d", i), "text")
		m.save(records.ActionCreate, fmt.Sprintf("m-%03d", i), fmt.Sprintf("M decision %d", i), "text")
	}
	m.sync()
	a.sync()
	m.sync()
	a.sync()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rep := a.sync(); rep.Arrived() != 0 || rep.Pushed {
			b.Fatalf("an idle sync did work: %+v", rep)
		}
	}
}

// A sync that applies 1,000 entries another home published.
func BenchmarkApply1000(b *testing.B) {
	remote := bareRemote(b)
	m := newTestHome(b, "m", remote)
	for i := 0; i < 1000; i++ {
		m.save(records.ActionCreate, fmt.Sprintf("m-%04d", i), fmt.Sprintf("M decision %d", i), fmt.Sprintf("text %d", i))
	}
	m.sync()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		a := newTestHome(b, fmt.Sprintf("a%d", i), remote)
		b.StartTimer()
		if rep := a.sync(); rep.Arrived() != 1000 {
			b.Fatalf("applied %d", rep.Arrived())
		}
	}
}
