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

// TestDetectHomeWithoutMemoryFiles: a home without either layout's files
// is today's zylos (v0.7.1) unless its setting (the environment's
// ZYLOS_MEMORY_LAYOUT, else the one in .env) names a layout; files win
// over the setting; init seeds DefaultKind where neither says.
func TestDetectHomeWithoutMemoryFiles(t *testing.T) {
	write := func(l Layout, rel, content string) {
		t.Helper()
		p := filepath.Join(l.ZylosDir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		files     map[string]string
		env       string
		want      *Kind
		found     bool
		seed      *Kind
		settingOK bool
	}{
		{name: "empty", want: UnmarkedKind, seed: DefaultKind, settingOK: true},
		{name: "sessions only", files: map[string]string{"memory/sessions/current.md": "x"}, want: UnmarkedKind, seed: DefaultKind, settingOK: true},
		{name: "c4 log only", files: map[string]string{"comm-bridge/c4.db": ""}, want: UnmarkedKind, seed: DefaultKind, settingOK: true},
		{name: "env v2", env: "v2", want: KindV2, found: true, seed: KindV2, settingOK: true},
		{name: ".env v2", files: map[string]string{".env": "TZ=UTC\nexport ZYLOS_MEMORY_LAYOUT='v2' # this binary's layout\n"}, want: KindV2, found: true, seed: KindV2, settingOK: true},
		{name: "env over .env", env: "v0.7.1", files: map[string]string{".env": "ZYLOS_MEMORY_LAYOUT=v2\n"}, want: KindV07, found: true, seed: KindV07, settingOK: true},
		{name: "core.md over setting", env: "v07", files: map[string]string{"memory/core.md": "x"}, want: KindV2, found: true, seed: KindV2, settingOK: true},
		{name: "identity.md over setting", env: "v2", files: map[string]string{"memory/identity.md": "x"}, want: KindV07, found: true, seed: KindV07, settingOK: true},
		{name: "bad setting", env: "v3", want: UnmarkedKind, seed: DefaultKind},
		{name: "bad .env setting", files: map[string]string{".env": "ZYLOS_MEMORY_LAYOUT=core\n"}, want: UnmarkedKind, seed: DefaultKind},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Layout{ZylosDir: t.TempDir(), LayoutEnv: tt.env}
			for rel, content := range tt.files {
				write(l, rel, content)
			}
			if got, found := l.Detect(); got != tt.want || found != tt.found {
				t.Errorf("Detect = %v, %v; want %v, %v", got, found, tt.want, tt.found)
			}
			if got := l.SeedKind(); got != tt.seed {
				t.Errorf("SeedKind = %v, want %v", got, tt.seed)
			}
			if _, err := l.Setting(); (err == nil) != tt.settingOK {
				t.Errorf("Setting error %v", err)
			}
		})
	}
}
