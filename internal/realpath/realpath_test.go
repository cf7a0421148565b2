package realpath

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWithinThroughLinks(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real", "memory")
	os.MkdirAll(real, 0o755)
	link := filepath.Join(base, "link")
	os.Symlink(filepath.Join(base, "real"), link)
	outside := filepath.Join(base, "outside")
	os.MkdirAll(outside, 0o755)
	os.Symlink(outside, filepath.Join(real, "out"))
	for _, c := range []struct {
		dir, p, rel string
		ok          bool
	}{
		{filepath.Join(link, "memory"), filepath.Join(real, "core.md"), "core.md", true},
		{real, filepath.Join(link, "memory", "reference", "new.md"), "reference/new.md", true},
		{real, filepath.Join(real, "out", "x.md"), "out/x.md", true},
		{real, filepath.Join(base, "real", "other.md"), "", false},
		{real, real, "", false},
		{real, filepath.Join(real, "..", "memory-not"), "", false},
	} {
		rel, ok := Within(c.dir, c.p)
		if rel != c.rel || ok != c.ok {
			t.Errorf("Within(%s, %s) = %q, %v; want %q, %v", c.dir, c.p, rel, ok, c.rel, c.ok)
		}
	}
}
