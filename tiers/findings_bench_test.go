package tiers

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/tiers/entries"
)

// largeTree is ten years of daily session logs (3,650 files of ten lines)
// and 1,000 decisions, the size PRODUCT.md section 9 measures against.
func largeTree() map[string]string {
	files := map[string]string{"core.md": "# Core Memory\n\n## Identity\nI am.\n"}
	day := time.Date(2016, 3, 15, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3650; i++ {
		d := day.AddDate(0, 0, i).Format(entries.DateLayout)
		var b strings.Builder
		fmt.Fprintf(&b, "# Session Log: %s\n\n", d)
		for h := 8; h < 18; h++ {
			fmt.Fprintf(&b, "**%02d:15** - worked on task %d of the day, see `notes/%d.md`\n", h, h, i)
		}
		files["sessions/"+d+".md"] = b.String()
	}
	var b strings.Builder
	b.WriteString("# Decisions Log\n\n")
	for i := 0; i < 1000; i++ {
		status := []string{"active", "superseded", "archived"}[i%3]
		fmt.Fprintf(&b, "### [%s] Decision %d\n- **Decision:** do thing %d\n- **Context:** because %d\n- **Status:** %s\n\n",
			day.AddDate(0, 0, i*3).Format(entries.DateLayout), i, i, i, status)
	}
	files["reference/decisions.md"] = b.String()
	return files
}

func BenchmarkEntryFindingsLargeTree(b *testing.B) {
	b.Setenv("TZ", "UTC")
	l := Layout{ZylosDir: b.TempDir()}
	writeTree(b, l, largeTree())
	now := time.Date(2026, 3, 15, 10, 30, 0, 0, time.UTC)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := l.EntryFindings(now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseDecisions(b *testing.B) {
	src := []byte(largeTree()["reference/decisions.md"])
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		entries.Parse("reference/decisions.md", src)
	}
}

// BenchmarkParseDecisionsPastLimit is what reading a decisions file of
// short entries would cost at the size limit and past it: why files over
// MaxEntryFileSize are refused rather than served.
func BenchmarkParseDecisionsPastLimit(b *testing.B) {
	for _, mb := range []int{4, 20} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			var s strings.Builder
			s.WriteString("# Decisions Log\n")
			for i := 0; s.Len() < mb<<20; i++ {
				fmt.Fprintf(&s, "\n### [2026-03-01] Decision number %d\n<!-- id: decision-number-%d -->\n- **Decision:** use option %d\n- **Context:** a few words of context\n- **Status:** active\n", i, i, i)
			}
			src := []byte(s.String())
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				entries.Parse("reference/decisions.md", src)
			}
		})
	}
}
