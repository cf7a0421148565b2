package recall

import (
	"os"
	"path/filepath"
	"slices"
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
	return k.inode
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
	for _, bad := range []string{
		"{not json",
		`{"version":1,"files":{}}`,
		"",
		"zylos-memory recall entries 1\n",
		entryCacheHeader + "@ 1 2 3 not-quoted\n",
		entryCacheHeader + "@ x\n3 DECISION - \"\" \"\" \"Postgres\"\n",
	} {
		h := sampleHome(t)
		h.file(t, ".state/"+entryCacheFile, bad)
		testutil.Golden(t, "testdata/retrieve_postgres.golden", []byte(h.retrieve(t, cachePrompt)))
		data, err := os.ReadFile(h.cacheFile())
		if sections := cachedSections(string(data)); err != nil || len(sections) != 1 {
			t.Errorf("cache %q not rebuilt: %v %s", bad, err, data)
		}
	}
}

// TestEntryCacheReplacesJSON: the JSON cache of earlier versions goes when
// the text cache is written, so the state directory holds one cache.
func TestEntryCacheReplacesJSON(t *testing.T) {
	h := sampleHome(t)
	h.file(t, ".state/"+oldEntryCacheFile, `{"version":1,"files":{}}`)
	h.retrieve(t, cachePrompt)
	if _, err := os.Stat(filepath.Join(h.layout.StateDir(), oldEntryCacheFile)); !os.IsNotExist(err) {
		t.Errorf("old cache still there: %v", err)
	}
}

func TestEntryLineRoundTrip(t *testing.T) {
	for _, e := range []entryData{
		{Category: "DECISION", Title: "Use Postgres", Line: 3, Tags: []string{"db", "auth"}, Status: "active",
			Date: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{Category: "REFERENCE", Title: "tab\tnew\nline \"quoted\" \\ \u200b\u202e \u212aafka", Line: 1},
		{Category: "PROJECT", Title: "x", Line: 99999, Status: "-"},
	} {
		var b strings.Builder
		writeEntry(&b, e)
		line := strings.TrimSuffix(b.String(), "\n")
		if strings.Contains(line, "\n") {
			t.Fatalf("entry %q written over two lines", e.Title)
		}
		got, ok := parseEntryLine(line)
		if !ok || got.title != e.Title || got.status != e.Status || got.line != e.Line || got.category != e.Category ||
			!slices.Equal(got.appendTags(nil), e.Tags) {
			t.Errorf("round trip of %+v: %+v, %v", e, got, ok)
		}
	}
}

// FuzzEntryHits holds the cached form to the entries it stands for: an
// entry that scores is found in the text with its fields intact, and no
// line of a damaged text breaks the scan.
func FuzzEntryHits(f *testing.F) {
	f.Add("Use Postgres for auth", "db,auth", "active", "postgres auth")
	f.Add("\u212aafka \"x\"\n@ 1 2 3 \"p\"", "", "superseded", "kafka")
	f.Fuzz(func(t *testing.T, title, tags, status, prompt string) {
		q := newQuery(Tokenize(prompt))
		e := entryData{Category: "DECISION", Title: title, Line: 7, Status: status}
		if tags != "" {
			e.Tags = strings.Split(tags, ",")
		}
		var b strings.Builder
		writeSection(&b, "/m/reference/decisions.md", fileKey{}, []entryData{e})
		hits := entryHits(b.String(), "/m", true, q, 0)
		want := q.score(e.Title, e.Tags)
		switch {
		case want == 0 && len(hits) != 0:
			t.Errorf("entry %q scores 0 but was hit", title)
		case want > 0 && (len(hits) != 1 || hits[0].Title != title || hits[0].Score != want ||
			hits[0].Path != "reference/decisions.md#L7"):
			t.Errorf("entry %q (score %d) came back as %+v", title, want, hits)
		}
		entryHits(title+"\n"+tags+"\n"+status, "/m", true, q, 1) // damaged text: must not panic
	})
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

// TestEntryCacheCorruptWithoutReferenceFiles: with no reference file, a
// damaged cache is still never read as entries.
func TestEntryCacheCorruptWithoutReferenceFiles(t *testing.T) {
	h := newHome(t)
	os.MkdirAll(h.layout.ReferenceDir(), 0o755)
	h.file(t, ".state/"+entryCacheFile, "garbage\n1 DECISION - \"\" \"kafka\" \"Kafka forged entry\"\n")
	if hits := referenceHits(h.layout, false, newQuery(Tokenize("kafka")), 0); len(hits) != 0 {
		t.Errorf("damaged cache read as entries: %+v", hits)
	}
}

// TestEntryCacheUnparsableFile: a reference file that cannot be parsed is
// left out without rewriting the cache on every prompt.
func TestEntryCacheUnparsableFile(t *testing.T) {
	h := sampleHome(t)
	if err := os.Mkdir(filepath.Join(h.layout.ReferenceDir(), "bad.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	first := h.retrieve(t, cachePrompt)
	written := inode(t, h.cacheFile())
	if again := h.retrieve(t, cachePrompt); again != first || inode(t, h.cacheFile()) != written {
		t.Errorf("second prompt rewrote the cache or answered differently:\n%s\n%s", first, again)
	}
	testutil.Golden(t, "testdata/retrieve_postgres.golden", []byte(first))
}

// TestEntryHitsNeedASection: an entry line before any file header has no
// file to cite and is left out.
func TestEntryHitsNeedASection(t *testing.T) {
	text := "3 DECISION - \"\" \"\" \"Kafka queues\"\n@ 0 0 0 \"/m/reference/d.md\"\n5 DECISION - \"\" \"\" \"Kafka topics\"\n"
	hits := entryHits(text, "/m", false, newQuery(Tokenize("kafka")), 0)
	if len(hits) != 1 || hits[0].Path != "reference/d.md#L5" {
		t.Errorf("hits %+v, want only reference/d.md#L5", hits)
	}
}
