package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/home"
)

// FuzzResolve: whatever ref the model sends, resolve answers an error or a
// file inside the home's memory/, never in a hidden directory, never
// through a link that leads out.
func FuzzResolve(f *testing.F) {
	zd := f.TempDir()
	mem := filepath.Join(zd, "memory")
	for _, dir := range []string{"reference", "records/decisions", ".state"} {
		os.MkdirAll(filepath.Join(mem, dir), 0o755)
	}
	os.WriteFile(filepath.Join(mem, "reference", "decisions.md"), []byte("# Decisions\n"), 0o644)
	os.WriteFile(filepath.Join(mem, "records", "decisions", "use-x.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(mem, ".state", "search.db"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(zd, "secret.md"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(zd, "secret.md"), filepath.Join(mem, "reference", "out.md"))
	h := call{Home: home.Of(tiers.Layout{ZylosDir: zd}, home.Options{Now: time.Now})}
	for _, seed := range []string{"memory/reference/decisions.md:3", "reference/decisions.md", "use-x", "c4:12",
		"../secret.md", "/etc/passwd", "memory/.state/search.db", "memory/reference/out.md", "memory/../secret.md:1",
		zd + "/memory/reference/decisions.md", "c4:-1", "x.md:0", ":", "memory/reference/decisions.md:99999999999999999999"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := h.resolve(s)
		if err != nil || r.c4 > 0 {
			return
		}
		if !strings.HasPrefix(r.rel, "memory/") || strings.Contains(r.rel, "/.") || strings.Contains(r.rel, "..") {
			t.Fatalf("%q resolved to %q", s, r.rel)
		}
		real, err := filepath.EvalSymlinks(r.abs)
		if err != nil || !strings.HasPrefix(real, mem+string(filepath.Separator)) {
			t.Fatalf("%q resolved to %s, really %s (%v)", s, r.abs, real, err)
		}
	})
}
