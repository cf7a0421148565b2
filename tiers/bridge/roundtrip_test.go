package bridge

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/records"
)

// genFile writes a reference file of kind file ("decisions.md", ...) with
// entries, prose, odd spacing, CRLF line ends, unicode and duplicate
// titles, as a hand would.
func genFile(r *rand.Rand, file string) string {
	titles := []string{"Use SQLite", "Ship the installer", "Reply in English", "日本語のタイトル", "Émigré café", "Use SQLite", "C# tooling", "Keep `code` in titles"}
	values := []string{"plain value", "value with **bold** and `code`", "ünïcödé ✓", "trailing spaces   ", "a: b", "x -> y"}
	var b strings.Builder
	b.WriteString("# Reference\n\nSome intro prose.\n")
	if file == "projects.md" {
		b.WriteString("\n## Active\n")
	}
	n := 1 + r.IntN(8)
	for i := 0; i < n; i++ {
		if file == "projects.md" && i == n/2 {
			b.WriteString("\n## Completed\n")
		}
		b.WriteString(strings.Repeat("\n", 1+r.IntN(2)))
		title := titles[r.IntN(len(titles))]
		v := func() string { return values[r.IntN(len(values))] }
		switch file {
		case "decisions.md":
			fmt.Fprintf(&b, "### [2026-0%d-1%d] %s\n", 1+r.IntN(9), r.IntN(10), title)
			fmt.Fprintf(&b, "- **Decision:** %s\n", v())
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "- **Context:** %s\n", v())
			}
			fmt.Fprintf(&b, "- **Status:** %s\n", []string{"active", "superseded", "archived", "Active"}[r.IntN(4)])
		case "projects.md":
			fmt.Fprintf(&b, "###   %s\n", title)
			fmt.Fprintf(&b, "* **Status:** %s\n- **Updated:** 2026-03-0%d\n", []string{"active", "completed", "blocked", "planned"}[r.IntN(4)], 1+r.IntN(9))
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "- **Notes:** %s\n  continued on a second line\n", v())
			}
		case "preferences.md":
			fmt.Fprintf(&b, "### %s\n- **Value:** %s\n", title, v())
			if r.IntN(2) == 0 {
				b.WriteString("- **Source:** stated\n- **Added:** 2026-01-02\n")
			}
		case "ideas.md":
			fmt.Fprintf(&b, "### %s\n", title)
			if r.IntN(3) > 0 {
				fmt.Fprintf(&b, "%s%s\n", strings.Repeat("\n", r.IntN(2)), v())
			}
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "- a list item with %s\n  - nested\n", v())
			}
		}
		if r.IntN(3) == 0 {
			b.WriteString("\nProse under the entry, with <!-- a comment --> and a list:\n\n- not a field\n")
		}
		if r.IntN(4) == 0 {
			b.WriteString("\n```\n### [2026-01-01] Not an entry\n```\n")
		}
	}
	out := b.String()
	if r.IntN(4) == 0 {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	if r.IntN(4) == 0 {
		out = strings.TrimRight(out, "\r\n")
	}
	return out
}

// TestRoundTripIngestThenRender: for well-formed files, ingest adds only
// the id comments, and rendering every record back (as records write does)
// changes no byte.
func TestRoundTripIngestThenRender(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 40; i++ {
		file := []string{"decisions.md", "projects.md", "preferences.md", "ideas.md"}[i%4]
		src := genFile(r, file)
		h := newHome(t, map[string]string{"reference/" + file: src})
		rep := mustIngest(t, h)
		if len(rep.Problems) != 0 {
			t.Fatalf("case %d: problems %v in\n%s", i, rep.Problems, src)
		}
		got := testutil.ReadFile(t, h.ref(file))
		if withoutIDs(got) != src {
			t.Fatalf("case %d: ingest changed more than ids:\n%q\n%q", i, src, got)
		}
		v := h.View()
		for _, st := range loadAll(t, h) {
			if _, err := v.Render(st.rec, ""); err != nil {
				t.Fatalf("case %d: render %s: %v", i, st.rec.ID, err)
			}
		}
		if after := testutil.ReadFile(t, h.ref(file)); after != got {
			t.Fatalf("case %d: render changed the file:\n%q\n%q", i, got, after)
		}
		if rep := mustIngest(t, h); len(rep.Changes) != 0 {
			t.Fatalf("case %d: second ingest: %v", i, rep.Changes)
		}
	}
}

// TestRoundTripRenderThenIngest: for a records store without a markdown
// view, the first ingest renders every record, and the next changes no
// record and no byte.
func TestRoundTripRenderThenIngest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	texts := []string{"plain", "two\nlines", "  padded  ", "ends with #", "**bold** start", "ünïcödé", "`code`", "x -> y", ""}
	for i := 0; i < 30; i++ {
		h := newHome(t, nil)
		for j := 0; j < 1+r.IntN(6); j++ {
			text := func() string { return texts[r.IntN(len(texts))] }
			title := fmt.Sprintf("Record %d %s", j, strings.TrimSpace(strings.ReplaceAll(text(), "\n", " ")))
			cat := []string{"decision", "project", "preference", "note"}[r.IntN(4)]
			var content map[string]any
			switch cat {
			case "decision":
				content = map[string]any{"status": []string{"proposed", "accepted", "deprecated", "superseded"}[r.IntN(4)],
					"context": text(), "decision": text(), "rationale": []any{"because"}}
			case "project":
				content = map[string]any{"status": []string{"active", "completed", "blocked", "planned"}[r.IntN(4)], "notes": text()}
			case "preference":
				content = map[string]any{"topic": "t", "value": text(), "reason": text(), "strength": "soft"}
			case "note":
				content = map[string]any{"body": text() + "\n\n" + text() + "\n- item\n  ```\n  ### not a heading\n  ```"}
			}
			_, err := h.writeWith(nil, writeOp{Action: "create", Category: cat,
				Target: h.recordPath(cat, fmt.Sprintf("rec-%d", j)),
				Doc:    map[string]any{"title": title, "tags": []any{"t"}, "content": content}})
			if err != nil {
				t.Fatalf("case %d: create: %v", i, err)
			}
		}
		rep := mustIngest(t, h)
		if len(rep.Problems) != 0 {
			t.Fatalf("case %d: problems %v", i, rep.Problems)
		}
		before := snapshot(t, h)
		if rep := mustIngest(t, h); len(rep.Changes) != 0 || len(rep.Problems) != 0 {
			t.Fatalf("case %d: second ingest: %v %v\n%s", i, rep.Changes, rep.Problems, before)
		}
		if after := snapshot(t, h); after != before {
			t.Fatalf("case %d: ingest changed bytes:\n%s\n---\n%s", i, before, after)
		}
	}
}

func loadAll(t *testing.T, h Memory) []*stored {
	recs, _, _, err := h.loadRecords(nil)
	if err != nil {
		t.Fatal(err)
	}
	in := &ingester{seen: seen{recs: recs}}
	return in.sortedRecords()
}

// snapshot is every file of the memory dir but the lock and the ingest
// stamp (a cache), as one string.
func snapshot(t *testing.T, h Memory) string {
	var b strings.Builder
	filepath.WalkDir(h.Layout.MemoryDir(), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, records.LockFile) || strings.HasSuffix(p, ".cache") {
			return err
		}
		fmt.Fprintf(&b, "== %s\n%s\n", p, testutil.ReadFile(t, p))
		return nil
	})
	return b.String()
}
