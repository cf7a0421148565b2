package bridge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/records"
)

// TestWriteRenewsTheStamp: a records write that found everything in step
// leaves the ingest stamp renewed (the next ingest costs a few stats), and
// a hand edit made after it is still ingested.
func TestWriteRenewsTheStamp(t *testing.T) {
	h := benchHome(t, 3)
	target := h.recordPath("decision", "decision-number-1")
	data := testutil.ReadFile(t, target)
	d, err := decodeObject([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	d["content"].(map[string]any)["context"] = "rendered"
	h.write(t, writeOp{Action: "update", Target: target, Doc: d, Hash: records.Hash([]byte(data))})
	keys, err := h.stateKeys()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := h.unchanged(keys); !ok {
		t.Fatal("the write left no stamp of its result")
	}
	md := h.ref("decisions.md")
	testutil.WriteFile(t, md, strings.Replace(testutil.ReadFile(t, md), "use option 2", "use option two", 1))
	rep := mustIngest(t, h)
	if got := fmt.Sprint(rep.Changes); len(rep.Changes) != 1 || !strings.Contains(got, "decision-number-2") {
		t.Fatalf("hand edit after the write: %v", rep.Changes)
	}
}
