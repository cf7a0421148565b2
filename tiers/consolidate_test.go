package tiers

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

func TestConsolidationLimitIsLocalCalendar(t *testing.T) {
	// 01:30 on 15 March in Shanghai is 17:30 UTC on 14 March: the limit is
	// 13 Feb 01:30 local = 12 Feb 17:30 UTC, so 2026-02-12 (UTC midnight) is
	// a candidate and 2026-02-13 is not.
	l := yearsOfLogs(t, 0)
	for _, name := range []string{"2026-02-12.md", "2026-02-13.md"} {
		os.WriteFile(l.SessionsDir()+"/"+name, nil, 0o644)
	}
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	r, err := Consolidation(l, time.Date(2026, 3, 15, 1, 30, 0, 0, shanghai))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.ArchiveCandidates, ",") != "2026-02-12.md" {
		t.Errorf("candidates = %q", r.ArchiveCandidates)
	}
	if _, err := os.Stat(l.ArchiveDir()); err != nil {
		t.Errorf("archive dir: %v", err)
	}
}

func BenchmarkConsolidation3650Logs(b *testing.B) {
	l := yearsOfLogs(b, 3650)
	now := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Consolidation(l, now)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.WriteJSON(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
