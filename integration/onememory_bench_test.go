package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// memBenchHome is an initialised home whose reference tier holds n
// decisions, already ingested (each with its record and id comment).
func memBenchHome(b *testing.B, n int) string {
	b.Helper()
	zylos := filepath.Join(b.TempDir(), "zylos")
	if err := os.MkdirAll(zylos, 0o755); err != nil {
		b.Fatal(err)
	}
	recBenchRun(b, zylos, "init")
	var s strings.Builder
	s.WriteString("# Decisions Log\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&s, "\n### [2026-03-01] Decision number %d\n- **Decision:** use option %d\n- **Context:** benchmark\n- **Status:** active\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(zylos, "memory", "reference", "decisions.md"), []byte(s.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	os.MkdirAll(filepath.Join(zylos, "memory", "records", ".staging"), 0o755)
	recBenchRun(b, zylos, "records", "ingest")
	// The second finds everything in step, as the hook's ingests do from
	// then on: it leaves the stamp and the pairs of every entry.
	recBenchRun(b, zylos, "records", "ingest")
	return zylos
}

// BenchmarkIngest1000Process: one whole `records ingest` of a reference
// tier of 1,000 decisions with nothing to change (the everyday case: the
// hook after an edit, the check before each records write).
func BenchmarkIngest1000Process(b *testing.B) {
	zylos := memBenchHome(b, 1000)
	testutil.Binary(b)
	cpu := testutil.StartChildCPU(b)
	for i := 0; i < b.N; i++ {
		recBenchRun(b, zylos, "records", "ingest")
	}
	cpu.Report()
}

// BenchmarkIngest1000EditProcess: `records ingest` of 1,000 decisions after
// one entry was edited by hand: one record updated.
func BenchmarkIngest1000EditProcess(b *testing.B) {
	zylos := memBenchHome(b, 1000)
	md := filepath.Join(zylos, "memory", "reference", "decisions.md")
	cpu := testutil.StartChildCPU(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		data, _ := os.ReadFile(md)
		os.WriteFile(md, []byte(strings.Replace(string(data), "- **Context:** benchmark", fmt.Sprintf("- **Context:** benchmark %d", i), 1)), 0o644)
		b.StartTimer()
		recBenchRun(b, zylos, "records", "ingest")
	}
	cpu.Report()
}

// BenchmarkRecordsWriteRenderProcess: one whole `records write --action
// update` of a decision shown in a reference tier of 1,000 decisions: the
// ingest before it, the record, and the entry rewritten in decisions.md.
func BenchmarkRecordsWriteRenderProcess(b *testing.B) {
	zylos := memBenchHome(b, 1000)
	rel := "memory/records/decisions/decision-number-500.json"
	target := filepath.Join(zylos, rel)
	in := filepath.Join(zylos, "memory", "records", ".staging", "in.json")
	cpu := testutil.StartChildCPU(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		data, _ := os.ReadFile(target)
		var d map[string]any
		json.Unmarshal(data, &d)
		d["content"].(map[string]any)["context"] = fmt.Sprintf("rendered %d", i)
		withChange(d)
		out, _ := json.Marshal(d)
		os.WriteFile(in, out, 0o644)
		b.StartTimer()
		recBenchRun(b, zylos, "records", "write", "--action", "update", "--target", rel, "--input", in, "--hash", md5hex(data))
	}
	cpu.Report()
}
