package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// largeEntriesHome is ten years of daily session logs (3,650 files) and
// 1,000 decisions.
func largeEntriesHome(b *testing.B) string {
	b.Helper()
	home := filepath.Join(b.TempDir(), "zylos")
	sessions := filepath.Join(home, "memory", "sessions")
	reference := filepath.Join(home, "memory", "reference")
	for _, d := range []string{sessions, reference} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	first := time.Date(2016, 3, 15, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3650; i++ {
		day := first.AddDate(0, 0, i).Format("2006-01-02")
		var s strings.Builder
		fmt.Fprintf(&s, "# Session Log: %s\n\n", day)
		for h := 8; h < 18; h++ {
			fmt.Fprintf(&s, "**%02d:15** - worked on task %d\n", h, h)
		}
		if err := os.WriteFile(filepath.Join(sessions, day+".md"), []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var d strings.Builder
	d.WriteString("# Decisions Log\n\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&d, "### [%s] Decision %d\n- **Decision:** x\n- **Context:** y\n- **Status:** %s\n\n",
			first.AddDate(0, 0, 3*i).Format("2006-01-02"), i, []string{"active", "superseded", "archived"}[i%3])
	}
	if err := os.WriteFile(filepath.Join(reference, "decisions.md"), []byte(d.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return home
}

func benchConsolidate(b *testing.B, home string, args ...string) {
	run := testutil.Run{ZylosDir: home}
	run.Exec(b, args...) // build the binary outside the timing
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := run.Exec(b, args...); res.Code != 0 {
			b.Fatalf("%v: %s", args, res.Stderr)
		}
	}
}

func BenchmarkConsolidateEntriesTypical(b *testing.B) {
	benchConsolidate(b, entriesHome(b), "consolidate", "--entries")
}

func BenchmarkConsolidateEntriesLargeTree(b *testing.B) {
	benchConsolidate(b, largeEntriesHome(b), "consolidate", "--entries")
}
