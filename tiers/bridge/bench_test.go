package bridge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/records"
)

// benchHome is a home whose decisions.md holds n ingested decisions.
func benchHome(b testing.TB, n int) Memory {
	var s strings.Builder
	s.WriteString("# Decisions Log\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&s, "\n### [2026-03-01] Decision number %d\n- **Decision:** use option %d\n- **Context:** benchmark\n- **Status:** active\n", i, i)
	}
	h := newHome(b, map[string]string{"reference/decisions.md": s.String()})
	mustIngest(b, h)
	return h
}

// BenchmarkIngest1000: an ingest of 1,000 decisions with nothing to do.
func BenchmarkIngest1000(b *testing.B) {
	h := benchHome(b, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rep := mustIngest(b, h); len(rep.Changes) != 0 {
			b.Fatal(rep.Changes)
		}
	}
}

// BenchmarkRender1000: rendering one record into a file of 1,000 entries.
func BenchmarkRender1000(b *testing.B) {
	h := benchHome(b, 1000)
	r, err := records.ReadRecord(h.recordPath("decision", "decision-number-500"))
	if err != nil {
		b.Fatal(err)
	}
	v := h.View()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Content["context"] = fmt.Sprintf("rendered %d", i)
		if _, err := v.Render(r, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIngest1000Edit: an ingest of 1,000 decisions after one entry
// was edited by hand: one record updated.
func BenchmarkIngest1000Edit(b *testing.B) {
	h := benchHome(b, 1000)
	md := h.ref("decisions.md")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		src := testutil.ReadFile(b, md)
		testutil.WriteFile(b, md, strings.Replace(src, "- **Context:** benchmark", fmt.Sprintf("- **Context:** benchmark %d", i), 1))
		b.StartTimer()
		if rep := mustIngest(b, h); len(rep.Changes) != 1 {
			b.Fatal(rep.Changes)
		}
	}
}

// BenchmarkWriteRender1000: a records write update of one of 1,000
// decisions through the view: the ingest before it, the record, the entry.
func BenchmarkWriteRender1000(b *testing.B) {
	h := benchHome(b, 1000)
	target := h.recordPath("decision", "decision-number-500")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		data := testutil.ReadFile(b, target)
		d, err := decodeObject([]byte(data))
		if err != nil {
			b.Fatal(err)
		}
		d["content"].(map[string]any)["context"] = fmt.Sprintf("rendered %d", i)
		d["changes"] = append(d["changes"].([]any), map[string]any{"date": "2026-03-15T10:30:00Z", "summary": "edited"})
		b.StartTimer()
		h.write(b, writeOp{Action: "update", Target: target, Doc: d, Hash: records.Hash([]byte(data))})
	}
}
