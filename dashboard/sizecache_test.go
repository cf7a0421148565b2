package dashboard

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestChartSamplesStayPutAsChangesAreAdded: the sampled changes are
// counted from the oldest, so one more change adds the newest point and
// keeps the others (until the step doubles).
func TestChartSamplesStayPutAsChangesAreAdded(t *testing.T) {
	var all []Change // newest first
	prevStep := 0
	var prev []Change
	for n := 1; n <= 2000; n++ {
		all = append([]Change{{}}, all...)
		all[0].Rev = strconv.Itoa(n)
		sample := sampleChanges(all, chartPoints)
		if len(sample) > chartPoints || sample[0].Rev != all[0].Rev || sample[len(sample)-1].Rev != "1" {
			t.Fatalf("%d changes: %d points, newest %s, oldest %s", n, len(sample), sample[0].Rev, sample[len(sample)-1].Rev)
		}
		step := 1
		if len(sample) > 2 {
			a, _ := strconv.Atoi(sample[1].Rev)
			b, _ := strconv.Atoi(sample[2].Rev)
			step = a - b
		}
		if step == prevStep && len(prev) > 1 {
			kept := map[string]bool{}
			for _, c := range sample {
				kept[c.Rev] = true
			}
			for _, c := range prev[1:] {
				if !kept[c.Rev] {
					t.Fatalf("%d changes: the point %s moved", n, c.Rev)
				}
			}
		}
		prev, prevStep = sample, step
	}
}

// TestTheSizeCacheIsBounded adds changes one at a time to a journal and
// draws the chart after each: the cache of sizes stays within its bound,
// and each new change costs a point or two to read, not a new set.
func TestTheSizeCacheIsBounded(t *testing.T) {
	l := testHome(t, true)
	note := filepath.Join(l.ReferenceDir(), "growing.md")
	commit := func(i int) {
		testutil.WriteFile(t, note, fmt.Sprintf("# growing\n\n%d\n", i))
		git(t, l, "add", "-A")
		git(t, l, "commit", "-q", "-m", fmt.Sprintf("change %d\n\nZylos-Source: tool", i))
	}
	for i := range 120 {
		commit(i)
	}
	s := newSite(Options{Layout: l, Now: func() time.Time { return testNow }}, testToken)
	draw := func() int {
		_, missing, errText := s.sizeChart(context.Background())
		if errText != "" {
			t.Fatal(errText)
		}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			s.sizes.mu.Lock()
			filling := s.sizes.filling
			s.sizes.mu.Unlock()
			if !filling {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the sizes were never read")
			}
		}
		return missing
	}
	draw()
	read := 0
	for i := 120; i < 180; i++ {
		commit(i)
		read += draw()
		s.sizes.mu.Lock()
		n := len(s.sizes.byRev)
		s.sizes.mu.Unlock()
		if n > maxCachedSizes {
			t.Fatalf("after %d changes the cache holds %d, over %d", i+1, n, maxCachedSizes)
		}
	}
	if read > 2*60+chartPoints {
		t.Errorf("60 new changes read %d points", read)
	}
}
