package fulltext

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

func update(t *testing.T, ix *Index, full bool) UpdateStats {
	t.Helper()
	st, err := ix.Update(context.Background(), full)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestUpdateAppendedLine(t *testing.T) {
	h := testHome(t)
	ix := openTest(t, h)
	if st := update(t, ix, false); st.Files != 0 || st.C4Rows != 0 {
		t.Fatalf("fresh index updated: %+v", st)
	}
	appendTo(t, h.Layout.CurrentSession(), "**09:30** - Ordered new walrus tape drives\n")
	if st := update(t, ix, false); st.Files != 1 {
		t.Fatalf("append: %+v", st)
	}
	if got := cites(search(t, ix, Query{Text: "walrus"})); !slices.Equal(got, []string{"memory/sessions/current.md:4"}) {
		t.Errorf("appended line: %v", got)
	}
	if got := cites(search(t, ix, Query{Text: "backup rotation"})); !slices.Equal(got, []string{"memory/sessions/current.md:3"}) {
		t.Errorf("earlier line indexed twice or lost: %v", got)
	}
}

func TestUpdatePartialLastLine(t *testing.T) {
	h := testHome(t)
	ix := openTest(t, h)
	appendTo(t, h.Layout.CurrentSession(), "**09:30** - Ordered new wal")
	update(t, ix, false)
	appendTo(t, h.Layout.CurrentSession(), "rus tape drives\n")
	update(t, ix, false)
	if got := cites(search(t, ix, Query{Text: "walrus"})); !slices.Equal(got, []string{"memory/sessions/current.md:4"}) {
		t.Errorf("completed line: %v", got)
	}
	if got := cites(search(t, ix, Query{Text: "wal"})); len(got) != 0 {
		t.Errorf("the partial line is still indexed: %v", got)
	}
}

func TestUpdateReplacedRemovedAndNewFiles(t *testing.T) {
	h := testHome(t)
	ix := openTest(t, h)
	l := h.Layout
	// rotation: current.md renamed to a dated log, a new current.md
	if err := os.Rename(l.CurrentSession(), filepath.Join(l.SessionsDir(), "2026-11-23.md")); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, l.CurrentSession(), "# Session Log: 2026-11-24\n\n**00:01** - A new day with otters\n")
	os.Remove(filepath.Join(l.ArchiveDir(), "2025-10-01.md"))
	testutil.WriteFile(t, filepath.Join(l.ArchiveDir(), "sessions", "2024-01-01.md"), "**07:00** - Deep archive about narwhals\n")
	// a reference file rewritten in place, same size would not do: edit it
	appendTo(t, filepath.Join(l.ReferenceDir(), "decisions.md"), "\n### [2026-11-20] Use Redis for queues\n- **Decision:** Redis\n- **Status:** active\n")
	st := update(t, ix, false)
	if st.Removed != 1 {
		t.Errorf("stats %+v", st)
	}
	checks := map[string][]string{
		"backup rotation": {"memory/sessions/2026-11-23.md:3"},
		"otters":          {"memory/sessions/current.md:3"},
		"llama":           nil,
		"narwhals":        {"memory/archive/sessions/2024-01-01.md:1"},
		"redis queues":    {"memory/reference/decisions.md:11"},
	}
	for q, want := range checks {
		if got := cites(search(t, ix, Query{Text: q})); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
	if hits := search(t, ix, Query{Text: "otters"}); hits[0].Date != "2026-11-24" {
		t.Errorf("date of current.md line: %+v", hits[0])
	}
	os.RemoveAll(filepath.Join(l.ArchiveDir(), "sessions"))
	update(t, ix, false)
	if got := cites(search(t, ix, Query{Text: "narwhals"})); len(got) != 0 {
		t.Errorf("removed directory still indexed: %v", got)
	}
}

func TestUpdateFullFindsInPlaceEditOfDatedLog(t *testing.T) {
	h := testHome(t)
	ix := openTest(t, h)
	p := filepath.Join(h.Layout.SessionsDir(), "2026-11-16.md")
	appendTo(t, p, "**12:00** - Late note about penguins\n")
	if got := cites(search(t, ix, Query{Text: "penguins"})); len(got) != 0 {
		t.Fatalf("not updated yet, found %v", got)
	}
	update(t, ix, true)
	if got := cites(search(t, ix, Query{Text: "penguins"})); !slices.Equal(got, []string{"memory/sessions/2026-11-16.md:7"}) {
		t.Errorf("after a full update: %v", got)
	}
}

func TestUpdateC4ByWatermark(t *testing.T) {
	h := testHome(t)
	ix := openTest(t, h)
	c4Rows(t, h.Layout.C4DB(), "2026-11-21 09:00:00", "in", "what about the heron budget")
	// c4.db's size may not change when a row fits its pages: the mtime does
	time.Sleep(10 * time.Millisecond)
	if st := update(t, ix, false); st.C4Rows != 1 {
		t.Fatalf("stats %+v", st)
	}
	if got := cites(search(t, ix, Query{Text: "heron"})); !slices.Equal(got, []string{"c4:3"}) {
		t.Errorf("new row: %v", got)
	}
	// a new c4.db starts its ids again: the old rows go
	os.Remove(h.Layout.C4DB())
	c4Rows(t, h.Layout.C4DB(), "2026-11-22 09:00:00", "in", "fresh start with ibis")
	update(t, ix, false)
	if got := cites(search(t, ix, Query{Text: "heron ibis"})); !slices.Equal(got, []string{"c4:1"}) {
		t.Errorf("after c4.db was replaced: %v", got)
	}
}

func TestBadC4IsSkipped(t *testing.T) {
	for name, mangle := range map[string]func(path string){
		"missing": func(p string) { os.Remove(p) },
		"corrupt": func(p string) { os.WriteFile(p, []byte(strings.Repeat("not sqlite ", 1000)), 0o644) },
		"no table": func(p string) {
			os.Remove(p)
			os.WriteFile(p, nil, 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := testHome(t)
			mangle(h.Layout.C4DB())
			ix := openTest(t, h)
			if got := cites(search(t, ix, Query{Text: "kangaroo zebra"})); !slices.Equal(got, []string{"memory/sessions/2026-11-16.md:3"}) {
				t.Errorf("%v", got)
			}
		})
	}
}

func TestCorruptIndexIsRebuilt(t *testing.T) {
	h := testHome(t)
	openTest(t, h).Close()
	for _, data := range []string{"garbage", ""} {
		os.Remove(h.DBPath() + "-wal")
		os.Remove(h.DBPath() + "-shm")
		if err := os.WriteFile(h.DBPath(), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		ix := openTest(t, h)
		if got := cites(search(t, ix, Query{Text: "kangaroo"})); len(got) != 1 {
			t.Errorf("after %q: %v", data, got)
		}
		ix.Close()
	}
}

func TestInvalidUTF8AndLongLines(t *testing.T) {
	h := testHome(t)
	long := strings.Repeat("filler ", 3<<20/7) // a 3 MB line
	testutil.WriteFile(t, filepath.Join(h.Layout.SessionsDir(), "2026-11-10.md"),
		"# Session Log: 2026-11-10\n\n**10:00** - caf\xe9 \xff\xfe about the ocelot\n"+long+" tail\n**11:00** - after the long line, quokka\n")
	ix := openTest(t, h)
	hits := search(t, ix, Query{Text: "ocelot"})
	if len(hits) != 1 || !strings.Contains(hits[0].Excerpt, "caf\uFFFD") {
		t.Errorf("invalid UTF-8: %+v", hits)
	}
	if got := cites(search(t, ix, Query{Text: "quokka"})); !slices.Equal(got, []string{"memory/sessions/2026-11-10.md:5"}) {
		t.Errorf("line after a long line: %v", got)
	}
}

func TestLockedIndexStillAnswers(t *testing.T) {
	h := testHome(t)
	openTest(t, h).Close()
	holder := openTest(t, h)
	tx, err := holder.db.Begin() // immediate: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ix, err := Open(context.Background(), h, Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	appendTo(t, h.Layout.CurrentSession(), "**09:30** - Ordered new walrus tape drives\n")
	if _, err := ix.Update(context.Background(), false); !errors.Is(err, ErrLocked) {
		t.Errorf("update under a held lock: %v", err)
	}
	if got := cites(search(t, ix, Query{Text: "kangaroo"})); len(got) != 1 {
		t.Errorf("search under a held lock: %v", got)
	}
}

// TestSearchWritesNoMemoryFile: building, updating and searching leave
// every file outside memory/.state as it was.
func TestSearchWritesNoMemoryFile(t *testing.T) {
	h := testHome(t)
	before := treeState(t, h.Base)
	ix := openTest(t, h)
	update(t, ix, true)
	search(t, ix, Query{Text: "kangaroo zebra jwt"})
	ix.Close()
	if after := treeState(t, h.Base); !maps.Equal(before, after) {
		t.Errorf("files changed:\n%v\n%v", before, after)
	}
}

func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".state" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			fi, _ := d.Info()
			data, _ := os.ReadFile(p)
			out[p] = fmt.Sprintf("%s %v", data, fi.ModTime())
		}
		return nil
	})
	return out
}

// TestFIFOsAreSkipped: a FIFO in place of a log or a record never hangs
// an update.
func TestFIFOsAreSkipped(t *testing.T) {
	h := testHome(t)
	for _, p := range []string{filepath.Join(h.Layout.SessionsDir(), "2026-11-01.md"),
		filepath.Join(h.Layout.RecordsDir(), "decisions", "fifo.json"), filepath.Join(h.Layout.ReferenceDir(), "notes.md")} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix := openTest(t, h)
	if got := cites(search(t, ix, Query{Text: "kangaroo"})); len(got) != 1 {
		t.Errorf("%v", got)
	}
}

// TestBuildOutOfTimeGoesToBackground: a build that cannot finish within
// BuildWithin is handed to Background once; one that only waited for
// another builder is not.
func TestBuildOutOfTimeGoesToBackground(t *testing.T) {
	h := testHome(t)
	calls := 0
	opts := Options{BuildWithin: time.Microsecond, Background: func() error { calls++; return nil }}
	if _, err := Open(context.Background(), h, opts); !errors.Is(err, ErrBuilding) || calls != 1 {
		t.Fatalf("out of time: %v, %d calls", err, calls)
	}
	if _, err := os.Stat(h.DBPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an abandoned build left an index: %v", err)
	}
	unlock, err := lockBuild(context.Background(), h.DBPath()+".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	opts.BuildWithin = 30 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Open(ctx, h, opts); !errors.Is(err, ErrLocked) || calls != 1 {
		t.Errorf("waiting for another builder: %v, %d calls", err, calls)
	}
}

// TestHugeLog: a 200 MB log (here mostly one line of NUL bytes, a sparse
// file) is read as a stream: the line after it is found, with its number.
func TestHugeLog(t *testing.T) {
	h := testHome(t)
	p := filepath.Join(h.Layout.SessionsDir(), "2026-11-02.md")
	testutil.WriteFile(t, p, "# Session Log: 2026-11-02\n\n**10:00** - before the flood\n")
	if err := os.Truncate(p, 200<<20); err != nil {
		t.Fatal(err)
	}
	appendTo(t, p, "\n**11:00** - after the flood came the armadillo\n")
	ix := openTest(t, h)
	if got := cites(search(t, ix, Query{Text: "armadillo"})); !slices.Equal(got, []string{"memory/sessions/2026-11-02.md:5"}) {
		t.Errorf("%v", got)
	}
}

// TestSymlinksAreNotFollowed: a log or record that is a symlink (which may
// lead anywhere) is not indexed.
func TestSymlinksAreNotFollowed(t *testing.T) {
	h := testHome(t)
	outside := filepath.Join(t.TempDir(), "secret.md")
	testutil.WriteFile(t, outside, "**10:00** - the vault combination is okapi\n")
	for _, p := range []string{filepath.Join(h.Layout.SessionsDir(), "2026-11-03.md"), filepath.Join(h.Layout.ArchiveDir(), "link.md")} {
		if err := os.Symlink(outside, p); err != nil {
			t.Fatal(err)
		}
	}
	ix := openTest(t, h)
	if got := cites(search(t, ix, Query{Text: "okapi"})); len(got) != 0 {
		t.Errorf("followed a symlink: %v", got)
	}
}

// A log edited in place and grown is not an append: the word replaced
// before the old end is found, the old one is gone.
func TestUpdateInPlaceEditThatGrewIsNoAppend(t *testing.T) {
	h := testHome(t)
	ix := openTest(t, h)
	appendTo(t, h.Layout.CurrentSession(), "**09:30** - Fed the aardvark\n")
	update(t, ix, false)
	path := h.Layout.CurrentSession()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "aardvark", "pangolin", 1) + "**09:45** - Cleaned the cage\n"
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0) // in place: same inode
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(edited); err != nil {
		t.Fatal(err)
	}
	f.Close()
	at := time.Now().Add(-time.Second)
	os.Chtimes(path, at, at)
	update(t, ix, false)
	if got := cites(search(t, ix, Query{Text: "pangolin"})); !slices.Equal(got, []string{"memory/sessions/current.md:4"}) {
		t.Errorf("pangolin: %v", got)
	}
	if got := cites(search(t, ix, Query{Text: "aardvark"})); len(got) != 0 {
		t.Errorf("aardvark still indexed: %v", got)
	}
	if got := cites(search(t, ix, Query{Text: "cage"})); !slices.Equal(got, []string{"memory/sessions/current.md:5"}) {
		t.Errorf("cage: %v", got)
	}
}

// An index of the previous schema (no CJK pairs, no log digests) is
// rebuilt when opened: its CJK words are then found.
func TestIndexOfOlderSchemaIsRebuilt(t *testing.T) {
	h := testHome(t)
	testutil.WriteFile(t, filepath.Join(h.Layout.SessionsDir(), "2026-11-12.md"), "# Session Log: 2026-11-12\n\n**09:00** - 東京のサーバーを再起動した\n")
	time.Sleep(racyWindow)
	ix := openTest(t, h)
	if _, err := ix.db.Exec(`UPDATE meta SET value = '2' WHERE key = 'version'`); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.db.Exec(`DELETE FROM docs`); err != nil { // what the old index did not find
		t.Fatal(err)
	}
	ix.Close()
	ix = openTest(t, h)
	var version string
	if err := ix.db.QueryRow(`SELECT value FROM meta WHERE key = 'version'`).Scan(&version); err != nil || version != schemaVersion {
		t.Fatalf("version %q, %v", version, err)
	}
	if got := cites(search(t, ix, Query{Text: "東京"})); !slices.Equal(got, []string{"memory/sessions/2026-11-12.md:3"}) {
		t.Errorf("東京: %v", got)
	}
}
