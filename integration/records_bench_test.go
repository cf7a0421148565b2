package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/zylos/zylos-memory/fixture/benchtree"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// recBenchHome is a zylos home with n active decision records and their
// index, and a staging folder for the input of a write.
func recBenchHome(b *testing.B, n int) (zylos, root string) {
	b.Helper()
	zylos = filepath.Join(b.TempDir(), "zylos")
	root = filepath.Join(zylos, "memory", "records")
	benchtree.Records(b, root, n, benchtree.Decision)
	if err := os.MkdirAll(filepath.Join(root, ".staging"), 0o755); err != nil {
		b.Fatal(err)
	}
	return zylos, root
}

func recBenchRun(b *testing.B, zylos string, args ...string) {
	b.Helper()
	if res := (testutil.Run{ZylosDir: zylos, Dir: zylos}).Exec(b, args...); res.Code != 0 {
		b.Fatalf("%v: exit %d: %s%s", args, res.Code, res.Stdout, res.Stderr)
	}
}

// BenchmarkRecordsCreateProcess: one whole `records write --action create`.
func BenchmarkRecordsCreateProcess(b *testing.B) {
	zylos, root := recBenchHome(b, 0)
	testutil.Binary(b)
	in := filepath.Join(root, ".staging", "in.json")
	os.WriteFile(in, []byte(`{"title":"Bench","tags":["b"],"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`), 0o644)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recBenchRun(b, zylos, "records", "write", "--action", "create", "--category", "decision",
			"--target", fmt.Sprintf("memory/records/decisions/bench-%d.json", i), "--input", in)
	}
}

// BenchmarkRecordsUpdateProcess: one whole `records write --action update`
// with --hash on a store of 1,000 records.
func BenchmarkRecordsUpdateProcess(b *testing.B) {
	zylos, root := recBenchHome(b, 1000)
	target := filepath.Join(root, "decisions", "decision-00001.json")
	in := filepath.Join(root, ".staging", "in.json")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		data, _ := os.ReadFile(target)
		var d map[string]any
		json.Unmarshal(data, &d)
		withChange(d)
		out, _ := json.Marshal(d)
		os.WriteFile(in, out, 0o644)
		b.StartTimer()
		recBenchRun(b, zylos, "records", "write", "--action", "update", "--target", "memory/records/decisions/decision-00001.json",
			"--input", in, "--hash", md5hex(data))
	}
}

// BenchmarkRecordsIndexQuery10k: `records index --query` over 10,000 records.
func BenchmarkRecordsIndexQuery10k(b *testing.B) {
	zylos, _ := recBenchHome(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recBenchRun(b, zylos, "records", "index", "--query", "topic-42")
	}
}

// BenchmarkRecordsIndexRebuild10k: `records index --rebuild` over 10,000 records.
func BenchmarkRecordsIndexRebuild10k(b *testing.B) {
	zylos, _ := recBenchHome(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recBenchRun(b, zylos, "records", "index", "--rebuild")
	}
}

// BenchmarkRecordsHelpProcess is the floor: starting the binary at all.
func BenchmarkRecordsHelpProcess(b *testing.B) {
	zylos, _ := recBenchHome(b, 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recBenchRun(b, zylos, "records", "--help")
	}
}
