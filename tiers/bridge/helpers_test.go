package bridge

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/records"
)

var testNow = time.Date(2026, 3, 15, 10, 30, 0, 0, time.UTC)

// newHome makes a home whose reference files hold files (name -> content).
func newHome(tb testing.TB, files map[string]string) Memory {
	tb.Helper()
	h := Memory{Layout: tiers.Layout{ZylosDir: tb.TempDir()}, Now: testNow}
	for name, content := range files {
		testutil.WriteFile(tb, filepath.Join(h.Layout.MemoryDir(), name), content)
	}
	return h
}

func (h Memory) ref(name string) string {
	return filepath.Join(h.Layout.MemoryDir(), "reference", name)
}

func (h Memory) recordPath(category, id string) string {
	return filepath.Join(h.root(), records.Folder(category), id+".json")
}

func mustIngest(tb testing.TB, h Memory) Report {
	tb.Helper()
	rep, err := Ingest(h, false)
	if err != nil {
		tb.Fatalf("ingest: %v", err)
	}
	return rep
}

var idLines = regexp.MustCompile(`(?m)^<!-- id: [a-z0-9-]+ -->\r?\n`)

// withoutIDs drops the id comment lines the bridge adds.
func withoutIDs(s string) string { return idLines.ReplaceAllString(s, "") }

// writeOp is a records write in h's root, its document given; FromTeam
// makes it a team exchange's (see records.WriteRequest).
type writeOp struct {
	Action, Target, Category, Hash, Reason, FromTeam string
	Doc                                              map[string]any
}

// write runs one records write through the view, as records write does.
func (h Memory) write(tb testing.TB, o writeOp) records.Answer {
	tb.Helper()
	ans, err := h.writeWith(h.View(), o)
	if err != nil {
		tb.Fatalf("records write %s: %v", o.Action, err)
	}
	return ans
}

// writeWith runs one records write at h.Now with view (nil: none).
func (h Memory) writeWith(view records.View, o writeOp) (records.Answer, error) {
	action, ok := records.ParseAction(o.Action)
	if !ok {
		return nil, fmt.Errorf("invalid action %q", o.Action)
	}
	target, err := records.ResolveTarget(h.root(), "", o.Target, action, o.Category)
	if err != nil {
		return nil, err
	}
	r := records.WriteRequest{Action: action, Target: target, Hash: o.Hash, Reason: o.Reason, Now: h.Now, View: view, FromTeam: o.FromTeam}
	if o.Doc != nil {
		r.Input = records.InputOf(o.Doc)
	}
	return records.Write(r)
}
