package home

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/journal"
	"github.com/zylos/zylos-memory/tiers/records"
)

var testNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func lookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

func openHome(t *testing.T, env map[string]string) *Home {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "zylos")
	l := tiers.Layout{ZylosDir: dir}
	if _, err := tiers.InitKind(l, testNow, false, tiers.KindV2); err != nil {
		t.Fatal(err)
	}
	h, err := Open(Options{ZylosDir: dir, LookupEnv: lookup(env), Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The kind is detected once: a v0.7 mark appearing afterwards does not
// change what the opened home's layout says.
func TestKindDetectedOnce(t *testing.T) {
	h := openHome(t, nil)
	if h.Kind != tiers.KindV2 || h.Layout.Kind() != tiers.KindV2 {
		t.Fatalf("kind %s, layout says %s; want v2", h.Kind.Name, h.Layout.Kind().Name)
	}
	if err := os.Remove(h.Layout.CoreFile()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.Layout.MemoryDir(), "identity.md"), []byte("# Identity\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h.Layout.Kind() != tiers.KindV2 {
		t.Errorf("the pinned layout detected again: %s", h.Layout.Kind().Name)
	}
	if l := (tiers.Layout{ZylosDir: h.Layout.ZylosDir}); l.Kind() == tiers.KindV2 {
		t.Errorf("an unpinned layout did not see the change")
	}
}

func TestSyncThreshold(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want int
		bad  bool
	}{
		{nil, tiers.KindV2.SyncThreshold, false},
		{map[string]string{tiers.SyncThresholdVar: "2"}, 2, false},
		{map[string]string{tiers.SyncThresholdVar: "0"}, 0, false},
		{map[string]string{tiers.SyncThresholdVar: "many"}, tiers.KindV2.SyncThreshold, true},
		{map[string]string{tiers.SyncThresholdVar: "010"}, tiers.KindV2.SyncThreshold, true},
		{map[string]string{tiers.SyncThresholdVar: "-1"}, tiers.KindV2.SyncThreshold, true},
		{map[string]string{tiers.SyncThresholdVar: ""}, tiers.KindV2.SyncThreshold, true},
	} {
		s := openHome(t, tt.env).Settings
		if s.SyncThreshold != tt.want || (s.ThresholdErr != nil) != tt.bad {
			t.Errorf("%v: threshold %d (%v), want %d (refused %v)", tt.env, s.SyncThreshold, s.ThresholdErr, tt.want, tt.bad)
		}
	}
}

// Save writes the record, renders its entry into the reference file and
// commits both as one change of the journal, on the home's clock.
func TestSaveRendersAndCommits(t *testing.T) {
	h := openHome(t, map[string]string{"CLAUDE_CODE_SESSION_ID": "s-1"})
	root := h.Layout.RecordsDir()
	target, err := records.ResolveTarget(root, "", filepath.Join(root, "decisions", "use-git.json"), records.ActionCreate, "decision")
	if err != nil {
		t.Fatal(err)
	}
	in := records.InputOf(map[string]any{"title": "Use git", "tags": []any{"git"},
		"content": map[string]any{"status": "accepted", "context": "c", "decision": "git", "rationale": []any{"r"}}})
	if _, err := h.Save(context.Background(), h.Command("records write"), records.WriteRequest{Action: records.ActionCreate, Target: target, Input: in}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(h.Layout.ReferenceDir(), "decisions.md"))
	if err != nil || !strings.Contains(string(md), "Use git") {
		t.Errorf("the entry was not rendered: %v\n%s", err, md)
	}
	entries, err := h.Journal().History(context.Background(), journal.Query{Limit: 5})
	if err != nil || len(entries) == 0 {
		t.Fatalf("history: %v %v", entries, err)
	}
	e := entries[0]
	if e.Session != "s-1" || !strings.Contains(strings.Join(e.Paths, " "), "records/decisions/use-git.json") ||
		!strings.Contains(strings.Join(e.Paths, " "), "reference/decisions.md") {
		t.Errorf("the change is not one commit of the record and its entry: %+v", e)
	}
}

// A view belongs only to the home's own records root.
func TestViewOnlyOfOwnRoot(t *testing.T) {
	h := openHome(t, nil)
	if h.View(h.Layout.RecordsDir()) == nil {
		t.Error("the home's own root has no view")
	}
	if h.View(filepath.Join(t.TempDir(), ".claude", "memory")) != nil {
		t.Error("a standalone root was given the home's view")
	}
}
