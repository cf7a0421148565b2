package recall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

const cachePrompt = "which database stores authentication data, postgres?"

func (h home) cacheFile() string { return filepath.Join(h.layout.StateDir(), entryCacheFile) }

func inode(tb testing.TB, path string) uint64 {
	tb.Helper()
	k, err := keyOf(path)
	if err != nil {
		tb.Fatal(err)
	}
	return k.Inode
}

// TestEntryCacheWarmMatchesCold: the answer from the cache is the answer
// from parsing, and an unchanged tier does not rewrite the cache.
func TestEntryCacheWarmMatchesCold(t *testing.T) {
	h := sampleHome(t)
	cold := h.retrieve(t, cachePrompt)
	written := inode(t, h.cacheFile())
	warm := h.retrieve(t, cachePrompt)
	testutil.Golden(t, "testdata/retrieve_postgres.golden", []byte(cold))
	testutil.Golden(t, "testdata/retrieve_postgres.golden", []byte(warm))
	if got := inode(t, h.cacheFile()); got != written {
		t.Error("cache rewritten although no reference file changed")
	}
}

func TestEntryCacheReparsesEditedFile(t *testing.T) {
	h := sampleHome(t)
	h.retrieve(t, cachePrompt)
	p := filepath.Join(h.layout.ReferenceDir(), "decisions.md")
	h.file(t, "reference/decisions.md", "# Decisions\n\n### [2026-03-11] Postgres replicas for authentication reads\n")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	out := h.retrieve(t, cachePrompt)
	if !strings.Contains(out, "Postgres replicas for authentication reads") ||
		strings.Contains(out, "Postgres for the authentication store") {
		t.Errorf("edited file not reparsed:\n%s", out)
	}
}

func TestEntryCacheCorruptIgnored(t *testing.T) {
	for _, bad := range []string{"{not json", `{"version":999,"files":{}}`, ""} {
		h := sampleHome(t)
		h.file(t, ".state/"+entryCacheFile, bad)
		testutil.Golden(t, "testdata/retrieve_postgres.golden", []byte(h.retrieve(t, cachePrompt)))
		data, err := os.ReadFile(h.cacheFile())
		var c entryCache
		if err != nil || json.Unmarshal(data, &c) != nil || c.Version != entryCacheVersion || len(c.Files) != 1 {
			t.Errorf("cache %q not rebuilt: %v %s", bad, err, data)
		}
	}
}

// TestEntryCacheUnwritableState: a state directory that cannot be written
// (here: a file in its place, which stops root too) costs the cache, not
// the answer.
func TestEntryCacheUnwritableState(t *testing.T) {
	h := sampleHome(t)
	if err := os.WriteFile(h.layout.StateDir(), []byte("x"), 0o444); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		testutil.Golden(t, "testdata/retrieve_postgres.golden", []byte(h.retrieve(t, cachePrompt)))
	}
}
