package tiers

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckConfined(t *testing.T) {
	for name, link := range map[string]struct{ from, to string }{
		"dangling core.md out":       {"memory/core.md", "/nonexistent-zylos-test/core.md"},
		"archive through a chain":    {"memory/archive", "../hop"},
		"state dir to a missing dir": {"memory/.state", "/nonexistent-zylos-test/state"},
	} {
		t.Run(name, func(t *testing.T) {
			l := Layout{ZylosDir: filepath.Join(t.TempDir(), "zylos")}
			if err := os.MkdirAll(l.MemoryDir(), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := l.CheckConfined(); err != nil {
				t.Fatalf("plain home: %v", err)
			}
			// ../hop (in the home) links on to a directory outside it.
			os.Symlink(t.TempDir(), filepath.Join(l.ZylosDir, "hop"))
			if err := os.Symlink(link.to, filepath.Join(l.ZylosDir, link.from)); err != nil {
				t.Fatal(err)
			}
			var outside *OutsideHomeError
			if err := l.CheckConfined(); !errors.As(err, &outside) {
				t.Errorf("err = %v, want an OutsideHomeError", err)
			}
		})
	}
	l := Layout{ZylosDir: filepath.Join(t.TempDir(), "zylos")}
	os.MkdirAll(filepath.Join(l.ZylosDir, "elsewhere"), 0o755)
	os.Symlink("elsewhere", filepath.Join(l.ZylosDir, "memory"))
	if err := l.CheckConfined(); err != nil {
		t.Errorf("memory linked within the home: %v", err)
	}
}
