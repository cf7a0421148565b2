package team

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/home"
	"github.com/zylos/zylos-memory/tiers/records"
)

// testHome is one home of a team in a test: real files, real git.
type testHome struct {
	t    testing.TB
	name string
	h    *home.Home
	now  time.Time
}

func newTestHome(t testing.TB, name, remote string) *testHome {
	t.Helper()
	l := tiers.Layout{ZylosDir: filepath.Join(t.TempDir(), name)}
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	if _, err := tiers.Init(l, now, false); err != nil {
		t.Fatal(err)
	}
	th := &testHome{t: t, name: name, now: now}
	th.h = home.Of(l, home.Options{Now: func() time.Time { return th.now }, Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}})
	if _, err := Join(context.Background(), th.h, remote, name); err != nil {
		t.Fatal(err)
	}
	return th
}

func bareRemote(t testing.TB) string {
	dir := filepath.Join(t.TempDir(), "team.git")
	if out, err := exec.Command("git", "init", "--bare", "--quiet", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return dir
}

func nothingFound(context.Context, map[string]string) (map[string]string, error) { return nil, nil }

func (th *testHome) sync() *Report {
	th.t.Helper()
	th.now = th.now.Add(time.Minute)
	rep, err := Sync(context.Background(), th.h, nothingFound)
	if err != nil {
		th.t.Fatalf("%s: sync: %v", th.name, err)
	}
	if rep.Problem != nil {
		th.t.Fatalf("%s: sync: %v", th.name, rep.Problem)
	}
	if len(rep.Skipped) > 0 {
		th.t.Logf("%s: skipped %v", th.name, rep.Skipped)
	}
	return rep
}

func (th *testHome) save(action records.Action, id, title, decision string) {
	th.t.Helper()
	root := th.h.Layout.RecordsDir()
	abs := filepath.Join(root, "decisions", id+".json")
	var req records.WriteRequest
	req.Action = action
	cat := ""
	if action == records.ActionCreate {
		cat = "decision"
	}
	target, err := records.ResolveTarget(root, "", abs, action, cat)
	if err != nil {
		th.t.Fatal(err)
	}
	req.Target = target
	if action.TakesInput() {
		d := map[string]any{"schema_version": "1.0", "category": "decision", "id": id, "title": title,
			"tags": []any{"t"}, "content": map[string]any{"status": "accepted", "context": "c", "decision": decision, "rationale": []any{"r"}}}
		if action == records.ActionUpdate {
			data, err := os.ReadFile(abs)
			if err != nil {
				th.t.Fatal(err)
			}
			l, err := localOf(abs, data)
			if err != nil {
				th.t.Fatal(err)
			}
			d = clone(l.doc)
			d["title"] = title
			d["content"].(map[string]any)["decision"] = decision
			records.AddChange(d, th.now.Format(time.RFC3339), "edit")
			req.Hash = l.hash
		}
		req.Input = records.InputOf(d)
	}
	req.KeepID = true
	if _, err := th.h.Save(context.Background(), th.h.Command("test"), req); err != nil {
		th.t.Fatal(err)
	}
}

func (th *testHome) local() map[string]*local {
	th.t.Helper()
	l, _, problems, err := readLocal(th.h.Layout.RecordsDir())
	if err != nil || len(problems) > 0 {
		th.t.Fatal(err, problems)
	}
	return l
}

func TestThreeHomesShareEverything(t *testing.T) {
	remote := bareRemote(t)
	homes := []*testHome{newTestHome(t, "a", remote), newTestHome(t, "b", remote), newTestHome(t, "c", remote)}
	for _, th := range homes {
		for i := 0; i < 5; i++ {
			th.save(records.ActionCreate, fmt.Sprintf("%s-decision-%d", th.name, i), fmt.Sprintf("Decision %d of %s", i, th.name), "do "+th.name)
		}
	}
	for round := 0; round < 2; round++ {
		for _, th := range homes {
			th.sync()
		}
	}
	for _, th := range homes {
		l := th.local()
		if len(l) != 15 {
			t.Errorf("%s holds %d entries, want 15", th.name, len(l))
		}
		for key, r := range l {
			owner := strings.Split(strings.TrimPrefix(key, "decision/"), "-")[0]
			want := owner
			if owner == th.name {
				want = ""
			}
			if r.origin != want {
				t.Errorf("%s: %s: origin %q, want %q", th.name, key, r.origin, want)
			}
		}
		ref, err := os.ReadFile(filepath.Join(th.h.Layout.ReferenceDir(), "decisions.md"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(ref), "<!-- id: "); n != 15 {
			t.Errorf("%s: decisions.md shows %d entries, want 15", th.name, n)
		}
	}
	// Nothing new: a sync changes nothing.
	for _, th := range homes {
		if rep := th.sync(); rep.Arrived() != 0 || len(rep.Conflicts) != 0 {
			t.Errorf("%s: idle sync applied %v, conflicts %v", th.name, rep.Applied, rep.Conflicts)
		}
	}
}

func TestEditedOnBothSidesKeepsBoth(t *testing.T) {
	remote := bareRemote(t)
	a, b := newTestHome(t, "a", remote), newTestHome(t, "b", remote)
	a.save(records.ActionCreate, "use-jwt", "Use JWT", "jwt")
	a.sync()
	b.sync()
	a.save(records.ActionUpdate, "use-jwt", "Use JWT", "jwt with rotation")
	b.save(records.ActionUpdate, "use-jwt", "Use JWT", "paseto instead")
	for round := 0; round < 3; round++ {
		a.sync()
		b.sync()
	}
	var texts []string
	for _, th := range []*testHome{a, b} {
		l := th.local()["decision/use-jwt"]
		if l.conflict == nil {
			t.Fatalf("%s: no conflict kept", th.name)
		}
		entry := l.entry.Content["decision"].(string)
		other := l.conflict.Content["decision"].(string)
		if entry == other {
			t.Errorf("%s: both texts are %q", th.name, entry)
		}
		texts = append(texts, entry+"|"+other)
		cs, err := Conflicts(th.h.Layout)
		if err != nil || len(cs) != 1 {
			t.Errorf("%s: conflicts %v %v", th.name, cs, err)
		}
	}
	if texts[0] != texts[1] {
		t.Errorf("homes disagree: %q vs %q", texts[0], texts[1])
	}
}

func TestChangedOnOneSideTakesIt(t *testing.T) {
	remote := bareRemote(t)
	a, b := newTestHome(t, "a", remote), newTestHome(t, "b", remote)
	a.save(records.ActionCreate, "use-jwt", "Use JWT", "jwt")
	a.sync()
	b.sync()
	// b's clock is hours ahead: its stamps say nothing about what changed.
	b.now = b.now.Add(5 * time.Hour)
	b.save(records.ActionUpdate, "use-jwt", "Use JWT", "b's edit")
	b.sync()
	a.sync()
	a.save(records.ActionUpdate, "use-jwt", "Use JWT", "a's later edit")
	a.sync()
	b.sync()
	for _, th := range []*testHome{a, b} {
		l := th.local()["decision/use-jwt"]
		if got := l.entry.Content["decision"]; got != "a's later edit" || l.conflict != nil {
			t.Errorf("%s: %q, conflict %v", th.name, got, l.conflict)
		}
	}
	b.save(records.ActionRetire, "use-jwt", "", "")
	b.sync()
	a.sync()
	if got := a.local()["decision/use-jwt"].entry.Status; got != records.StatusRetired {
		t.Errorf("retire did not travel: %s", got)
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"laptop": true, "worker-1": true, "a.b_c": true, "0": true, strings.Repeat("a", 63): true,
		"": false, "-x": false, ".x": false, "X": false, "a b": false, "a/b": false, "a..b": false,
		"x.lock": false, strings.Repeat("a", 64): false, "é": false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v", name, got)
		}
	}
}
