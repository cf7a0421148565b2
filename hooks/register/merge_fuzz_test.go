package register

import (
	"encoding/json"
	"testing"

	"github.com/zylos/zylos-memory/hooks"
)

// FuzzMergeSettings: any settings file either is refused, or merges into
// valid JSON that a second merge leaves unchanged.
func FuzzMergeSettings(f *testing.F) {
	for _, seed := range []string{
		"", "{}", userSettings, `{"hooks":{}}`, `{"hooks":{"Stop":[{"hooks":[{"command":"x zylos-memory hook stop"}]}]}}`,
		`{"hooks":[]}`, `{"a":1}{`, `{"hooks":{"Stop":[{"hooks":"x"}]}}`, "\xff",
	} {
		f.Add([]byte(seed))
	}
	want := entries(regLayout, "/bin/zylos-memory", hooks.AllEvents())
	f.Fuzz(func(t *testing.T, data []byte) {
		merged, _, err := mergeSettings(data, want, nil)
		if err != nil {
			return
		}
		if !json.Valid(merged) {
			t.Fatalf("merged settings are not JSON:\n%s", merged)
		}
		again, changed, err := mergeSettings(merged, want, nil)
		if err != nil || changed || string(again) != string(merged) {
			t.Fatalf("second merge: changed=%v err=%v\n%s\n---\n%s", changed, err, merged, again)
		}
	})
}
