package records

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func benchRoot(b *testing.B, n int) string {
	b.Helper()
	root := filepath.Join(b.TempDir(), "memory", "records")
	dir := filepath.Join(root, "decisions")
	os.MkdirAll(dir, 0o755)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("decision-%05d", i)
		data, _ := json.MarshalIndent(map[string]any{
			"schema_version": "1.0", "category": "decision", "id": id, "title": fmt.Sprintf("Decision %d on topic %d", i, i%97),
			"created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "record_status": "active",
			"tags":    []string{fmt.Sprintf("topic-%d", i%97), "bench"},
			"content": map[string]any{"status": "accepted", "context": "some context text", "decision": "d", "rationale": []string{"r"}},
		}, "", "  ")
		os.WriteFile(filepath.Join(dir, id+".json"), data, 0o644)
	}
	return root
}

func BenchmarkRebuildIndex10k(b *testing.B) {
	root := benchRoot(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := RebuildIndex(root, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIndexQuery10k(b *testing.B) {
	root := benchRoot(b, 10000)
	RebuildIndex(root, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := IndexQuery(root, "topic-42", io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	data := []byte(storedDecision)
	Validate("decision", data)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Validate("decision", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteCreate(b *testing.B) {
	root := benchRoot(b, 1000)
	RebuildIndex(root, nil)
	in := filepath.Join(root, StagingDir, "in.json")
	os.MkdirAll(filepath.Dir(in), 0o755)
	os.WriteFile(in, []byte(`{"title":"Bench","tags":["b"],"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`), 0o644)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, err := writeFlags(flags{Action: "create", Category: "decision", Root: root, Now: testNow,
			Target: fmt.Sprintf("decisions/bench-%d.json", i), Input: in})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteUpdate(b *testing.B) {
	root := benchRoot(b, 1000)
	RebuildIndex(root, nil)
	target := filepath.Join(root, "decisions", "decision-00001.json")
	in := filepath.Join(root, StagingDir, "in.json")
	os.MkdirAll(filepath.Dir(in), 0o755)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		data, _ := os.ReadFile(target)
		d, _ := decodeDoc(data)
		d["changes"] = append(d.list("changes"), map[string]any{"date": "2026-03-15", "summary": fmt.Sprint(i)})
		out, _ := d.bytes()
		os.WriteFile(in, out, 0o644)
		b.StartTimer()
		if _, err := writeFlags(flags{Action: "update", Root: root, Now: testNow, Target: "decisions/decision-00001.json",
			Input: in, Hash: Hash(data)}); err != nil {
			b.Fatal(err)
		}
	}
}
