package records

import (
	"reflect"
	"testing"
)

func TestEnvelope(t *testing.T) {
	d := NewDocument("decision", "use-git", "Use git", "2026-05-01T12:00:00Z")
	AddChange(d, "2026-05-01T12:00:00Z", "created")
	AddChange(d, "2026-05-02T12:00:00Z", "edited")
	want := []any{map[string]any{"date": "2026-05-01T12:00:00Z", "summary": "created"},
		map[string]any{"date": "2026-05-02T12:00:00Z", "summary": "edited"}}
	if !reflect.DeepEqual(d["changes"], want) || d["schema_version"] != SchemaVersion || d["times_updated"] != 0 {
		t.Errorf("envelope %v", d)
	}
	old := map[string]any{"title": "Use git", "changes": []any{want[0]}}
	r := Restored(old, d, "2026-05-03T12:00:00Z", "restored from abc")
	if got := r["changes"].([]any); len(got) != 3 || got[2].(map[string]any)["summary"] != "restored from abc" {
		t.Errorf("restored log %v, want the current two and the restore", got)
	}
}
