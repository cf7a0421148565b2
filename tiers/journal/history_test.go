package journal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// History selects by source and session together, reads one change by
// its revision, and lists paths with or without line counts.
func TestHistoryQueries(t *testing.T) {
	j, mem := home(t)
	ctx := context.Background()
	write := func(name, text string, c Change) string {
		t.Helper()
		os.WriteFile(filepath.Join(mem, name), []byte(text), 0o644)
		res, err := j.Commit(ctx, c)
		if err != nil || res == nil {
			t.Fatalf("commit %s: %v %v", name, res, err)
		}
		return res.Rev
	}
	write("a.md", "a\n", Change{Source: FromHook, Session: "s1", Tool: "Write"})
	write("b.md", "b\nb\n", Change{Source: FromExternal})
	hookS2 := write("c.md", "c\n", Change{Source: FromHook, Session: "s2", Tool: "Edit"})

	for _, tt := range []struct {
		q    Query
		want string // the paths of each entry, newest first
	}{
		{Query{Source: FromHook}, "c.md|a.md"},
		{Query{Source: FromHook, Session: "s2"}, "c.md"},
		{Query{Source: FromExternal, Session: "s2"}, ""},
		{Query{Rev: hookS2[:10]}, "c.md"},
		{Query{Limit: 2, Detail: Names}, "c.md|b.md"},
		{Query{Path: "core.md"}, "core.md"},
		{Query{Path: "core.md", Detail: Names}, ""}, // a list names no path of the first change
		{Query{Rev: hookS2, Detail: Names}, "c.md"},
	} {
		es, err := j.History(ctx, tt.q)
		if err != nil {
			t.Fatalf("%+v: %v", tt.q, err)
		}
		var got []string
		for _, e := range es {
			got = append(got, strings.Join(e.Paths, ","))
		}
		if strings.Join(got, "|") != tt.want {
			t.Errorf("%+v: %q, want %q", tt.q, strings.Join(got, "|"), tt.want)
		}
	}
	if es, _ := j.History(ctx, Query{Limit: 1, Detail: Bare}); len(es) != 1 || len(es[0].Paths) != 0 || es[0].Rev != hookS2 {
		t.Errorf("bare: %+v", es)
	}
	if es, _ := j.History(ctx, Query{Source: FromExternal}); len(es) != 1 || es[0].Added != 2 {
		t.Errorf("counts: %+v", es)
	}
	for _, rev := range []string{"", "--all", "no-such-rev"} {
		if _, err := j.History(ctx, Query{Rev: rev, Limit: 1}); rev != "" && err == nil {
			t.Errorf("rev %q taken", rev)
		}
	}
}

// A patch or a restore diff is cut at its limit, and git stopped there;
// Sizes are the files as a change had them.
func TestPatchRestoreDiffAndSizes(t *testing.T) {
	j, mem := home(t)
	ctx := context.Background()
	os.WriteFile(filepath.Join(mem, "big.md"), []byte(strings.Repeat("a line of memory\n", 20000)), 0o644)
	res, err := j.Commit(ctx, Change{Source: FromExternal})
	if err != nil || res == nil {
		t.Fatal(res, err)
	}
	patch, cut, err := j.Patch(ctx, res.Rev, 4096)
	if err != nil || !cut || len(patch) != 4096 || !strings.HasPrefix(patch, "diff --git a/big.md b/big.md") {
		t.Errorf("patch: cut %v, %d bytes, %v", cut, len(patch), err)
	}
	if patch, cut, err := j.Patch(ctx, res.Rev, 0); err != nil || cut || strings.Count(patch, "+a line of memory\n") != 20000 {
		t.Errorf("whole patch: cut %v, %d bytes, %v", cut, len(patch), err)
	}
	os.WriteFile(filepath.Join(mem, "big.md"), []byte("short now\n"), 0o644)
	diff, cut, err := j.RestoreDiff(ctx, res.Rev, "big.md", 1<<20)
	if err != nil || cut || !strings.Contains(diff, "--- now/big.md") || !strings.Contains(diff, "-short now\n") {
		t.Errorf("restore diff: cut %v, %v:\n%.300s", cut, err, diff)
	}
	sizes, err := j.Sizes(ctx, res.Rev)
	if err != nil || sizes["big.md"] != 20000*17 || sizes["core.md"] != int64(len("# Core\n\none\ntwo\nthree\n")) {
		t.Errorf("sizes: %v %v", sizes, err)
	}
	if _, _, err := j.Patch(ctx, "--output=/tmp/x", 10); err == nil {
		t.Error("an option taken for a revision")
	}
}
