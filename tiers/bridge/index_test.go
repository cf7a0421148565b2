package bridge

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/records"
)

// TestIndexedRenderIsInvisible: a records write that renders its entry
// from the entry index (parsing that entry alone) leaves exactly the bytes
// of one that reads and parses the whole file, write after write, and the
// index it leaves in the stamp is the one a fresh parse gives.
func TestIndexedRenderIsInvisible(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	values := []string{"plain", "two\nlines", "ends with #", "**bold**", "ünïcödé", "`code`", "", "x\n## not a section\ny", "### not an entry"}
	indexed := 0
	for i := 0; i < 60; i++ {
		file, full, fast := twinHomes(t, r, i)
		for round := 0; round < 4; round++ {
			var active []*stored
			for _, st := range loadAll(t, fast) {
				if st.rec.Status() == records.StatusActive {
					active = append(active, st)
				}
			}
			if len(active) == 0 {
				break
			}
			st := active[r.IntN(len(active))]
			v := values[r.IntN(len(values))]
			title := ""
			if r.IntN(4) == 0 {
				title = fmt.Sprintf("Retitled %d", round)
			}
			os.Remove(full.stampPath())
			var errs [2]string
			for k, h := range []Memory{full, fast} {
				data := testutil.ReadFile(t, h.recordPath(st.spec.category, st.id))
				d, err := decodeObject([]byte(data))
				if err != nil {
					t.Fatal(err)
				}
				content := d["content"].(map[string]any)
				switch st.spec.category {
				case "decision":
					content["context"] = v
				case "project":
					content["notes"] = v
				case "preference":
					content["value"] = strings.ReplaceAll(v, "\n", " ") + " value"
				case "note":
					content["body"] = v
				}
				if title != "" {
					d["title"] = title
				}
				d["changes"] = append(d["changes"].([]any), map[string]any{"date": "2026-03-15T10:30:00Z", "summary": "edited"})
				view := h.View().(*view)
				if err := view.Sync(nil); err != nil {
					t.Fatal(err)
				}
				if k == 1 && view.step != nil && view.step.files == nil && view.step.index != "" {
					indexed++
				}
				_, err = h.writeWith(view, writeOp{Action: "update",
					Target: h.recordPath(st.spec.category, st.id), Doc: d, Hash: records.Hash([]byte(data))})
				errs[k] = fmt.Sprint(err)
			}
			if errs[0] != errs[1] {
				t.Fatalf("case %d round %d: the writes differ: %s, indexed: %s", i, round, errs[0], errs[1])
			}
			if a, b := memorySnapshot(t, full), memorySnapshot(t, fast); a != b {
				t.Fatalf("case %d round %d: files differ\nfull:\n%s\nindexed:\n%s", i, round, a, b)
			}
			keys, err := fast.stateKeys()
			if err != nil {
				t.Fatal(err)
			}
			if _, index, ok := fast.unchanged(keys); ok && index != "" {
				files, _, err := fast.loadFiles()
				if err != nil {
					t.Fatal(err)
				}
				if want := indexFiles(files); index != want {
					t.Fatalf("case %d round %d: index\n%s\nwant\n%s\nfile %q", i, round, index, want, testutil.ReadFile(t, fast.ref(file)))
				}
			}
		}
	}
	if indexed < 100 {
		t.Fatalf("only %d writes had an entry index: the test proves little", indexed)
	}
}
