package tiers

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEveryLayoutHoldsTogether checks, for each layout value, that what it
// says of itself agrees: the home init seeds is detected as that layout,
// holds every file it injects and every file a memory sync updates, and
// every report of the layout answers for it. A new layout is one more
// value; this test is what tells it is whole.
func TestEveryLayoutHoldsTogether(t *testing.T) {
	now := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	for _, k := range kinds {
		t.Run(k.Name, func(t *testing.T) {
			for _, name := range append([]string{k.Name}, k.aliases...) {
				if got, err := ParseKind(name); err != nil || got != k {
					t.Errorf("ParseKind(%q) = %v, %v", name, got, err)
				}
			}
			l := Layout{ZylosDir: t.TempDir()}
			if _, err := InitKind(l, now, false, k); err != nil {
				t.Fatal(err)
			}
			if got, found := l.Detect(); got != k || !found {
				t.Fatalf("init seeded a home detected as %v (found %v)", got, found)
			}

			var names []string
			for _, f := range k.Injected {
				names = append(names, f.Name)
				if f.Budget <= 0 || f.WarnAt >= f.Budget || (k.Sections && f.Label == "") {
					t.Errorf("%s: budget %d, warn at %d, label %q", f.Name, f.Budget, f.WarnAt, f.Label)
				}
				if !slices.Contains(AllInjected(), f.Name) {
					t.Errorf("AllInjected lacks %s", f.Name)
				}
			}
			budgets, err := k.Budgets(l)
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range budgets {
				if b.File != names[i] || b.Size <= 0 {
					t.Errorf("budget %d: %+v, want %s seeded", i, b, names[i])
				}
			}
			parts, err := MemoryParts(l)
			if err != nil || len(parts) != len(names) {
				t.Fatalf("MemoryParts: %d parts, %v; want %d", len(parts), err, len(names))
			}
			for i, p := range parts {
				if open, _ := SectionFrame(k.Injected[i].Label); k.Sections && !strings.HasPrefix(p.Text, open) {
					t.Errorf("part %d is not framed as %s: %.40q", i, k.Injected[i].Label, p.Text)
				}
			}

			targets := l.SyncTargets()
			if want := filepath.Join(l.MemoryDir(), k.stateFile); targets[0] != want || !slices.Contains(names, k.stateFile) {
				t.Errorf("a sync updates %s first; want %s, an injected file", targets[0], want)
			}
			for _, f := range targets {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("sync target not seeded: %v", err)
				}
			}

			var status bytes.Buffer
			if err := LayoutStatus(l, &status); err != nil || status.Len() == 0 {
				t.Errorf("status: %q, %v", status.String(), err)
			}
			if report, n, err := k.ConsolidationReport(l, now); err != nil || len(report) == 0 || n != 0 {
				t.Errorf("consolidation of a fresh home: %d fields, %d to act on, %v", len(report), n, err)
			}
			if ask := k.SyncTrigger(3, 40); ask == "" || strings.Contains(ask, "%!") {
				t.Errorf("the sync request %q", ask)
			}
			steps, err := Rotate(l, now.AddDate(0, 0, 1))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range steps.Messages(k) {
				if m == "" || strings.Contains(m, "%!") {
					t.Errorf("rotate said %q", steps.Messages(k))
				}
			}
		})
	}
}
