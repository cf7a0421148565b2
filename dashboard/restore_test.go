package dashboard

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/bridge"
	"github.com/zylos/zylos-memory/tiers/journal"
)

// gitOut is git's output in the journal of l.
func gitOut(tb testing.TB, l tiers.Layout, args ...string) string {
	tb.Helper()
	out, err := exec.Command("git", append([]string{"-C", l.MemoryDir()}, args...)...).Output()
	if err != nil {
		tb.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// ingestAndCommit brings the records in step with the reference files,
// as a hook would, and journals the change.
func ingestAndCommit(tb testing.TB, l tiers.Layout, session string) string {
	tb.Helper()
	if _, err := bridge.Ingest(bridge.Memory{Layout: l, Now: testNow}, false); err != nil {
		tb.Fatal(err)
	}
	j := journal.Open(l)
	if _, err := j.Commit(context.Background(), journal.Change{Source: journal.FromHook, Tool: "Edit", Session: session}); err != nil {
		tb.Fatal(err)
	}
	return gitOut(tb, l, "rev-parse", "HEAD")
}

// walrusRecord is the record of the walrus decision.
func walrusRecord(tb testing.TB, l tiers.Layout) string {
	tb.Helper()
	recs, _ := filepath.Glob(filepath.Join(l.RecordsDir(), "decisions", "*.json"))
	for _, p := range recs {
		if strings.Contains(testutil.ReadFile(tb, p), "Pick the walrus queue") {
			return p
		}
	}
	tb.Fatalf("no record of the walrus decision among %v", recs)
	return ""
}

func csrfForm(kv ...string) url.Values {
	v := url.Values{"csrf": {newGuard(testToken, nil).csrf}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func TestRestoreAReferenceFileFromTheDashboardRecordsFollow(t *testing.T) {
	l := testHome(t, true)
	srv := serve(t, l, nil)
	decisions := filepath.Join(l.ReferenceDir(), "decisions.md")
	walrus := ingestAndCommit(t, l, "s-42")
	testutil.WriteFile(t, decisions, strings.Replace(testutil.ReadFile(t, decisions), "- **Decision:** walrus", "- **Decision:** narwhal", 1))
	ingestAndCommit(t, l, "s-43")
	rec := walrusRecord(t, l)
	if !strings.Contains(testutil.ReadFile(t, rec), "narwhal") {
		t.Fatalf("the edit did not reach the record:\n%s", testutil.ReadFile(t, rec))
	}

	change := srv.get(t, "/change?rev="+walrus)
	mustContain(t, change, `"restore?rev=`+walrus+`&amp;file=reference%2fdecisions.md`)
	before := snapshot(t, l.ZylosDir)
	confirm := srv.get(t, "/restore?rev="+walrus+"&file=reference/decisions.md")
	if confirm.code != http.StatusOK {
		t.Fatalf("confirmation: %d\n%s", confirm.code, confirm.body)
	}
	mustContain(t, confirm, "memory/reference/decisions.md", walrus[:10], "-- **Decision:** narwhal", "&#43;- **Decision:** walrus",
		`<form method="post" action="restore">`, `name="rev" value="`+walrus+`"`, `name="file" value="reference/decisions.md"`)
	sameTree(t, l.ZylosDir, before)

	noToken := srv.do(t, http.MethodPost, "/restore", true, url.Values{"rev": {walrus}, "file": {"reference/decisions.md"}}, nil)
	if noToken.code != http.StatusForbidden {
		t.Errorf("a POST without the CSRF token: %d", noToken.code)
	}
	sameTree(t, l.ZylosDir, before)

	done := srv.do(t, http.MethodPost, "/restore", true, csrfForm("rev", walrus, "file", "reference/decisions.md"), nil)
	if done.code != http.StatusOK {
		t.Fatalf("restore: %d\n%s", done.code, done.body)
	}
	mustContain(t, done, "restored memory/reference/decisions.md as at "+walrus[:10]+" (")
	if text := testutil.ReadFile(t, decisions); !strings.Contains(text, "- **Decision:** walrus") || strings.Contains(text, "narwhal") {
		t.Errorf("the file was not restored:\n%s", text)
	}
	if got := testutil.ReadFile(t, rec); !strings.Contains(got, `"decision": "walrus"`) || !strings.Contains(got, "restored from "+walrus[:10]) {
		t.Errorf("the record did not follow:\n%s", got)
	}
	msg := gitOut(t, l, "log", "-1", "--format=%B")
	for _, want := range []string{"memory/reference/decisions.md as at " + walrus[:10], "Zylos-Source: command", "Zylos-Command: dashboard restore"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the journal's change lacks %q:\n%s", want, msg)
		}
	}
	if files := gitOut(t, l, "show", "--name-only", "--format=", "HEAD"); !strings.Contains(files, "records/decisions/") {
		t.Errorf("the restore's change does not carry the record: %s", files)
	}
}

func TestUndoASessionFromTheDashboard(t *testing.T) {
	l := testHome(t, true)
	srv := serve(t, l, nil)
	core := testutil.ReadFile(t, l.CoreFile())
	testutil.WriteFile(t, l.CoreFile(), core+"\nThe otter note.\n")
	j := journal.Open(l)
	if _, err := j.Commit(context.Background(), journal.Change{Source: journal.FromHook, Tool: "Write", Session: "s-otter"}); err != nil {
		t.Fatal(err)
	}
	mustContain(t, srv.get(t, "/timeline?session=s-otter"), `href="undo?session=s-otter"`)
	before := snapshot(t, l.ZylosDir)
	confirm := srv.get(t, "/undo?session=s-otter")
	if confirm.code != http.StatusOK {
		t.Fatalf("confirmation: %d\n%s", confirm.code, confirm.body)
	}
	mustContain(t, confirm, "core.md", `<form method="post" action="undo">`, `name="session" value="s-otter"`, "Undo the 1 changes of session s-otter")
	sameTree(t, l.ZylosDir, before)
	if a := srv.do(t, http.MethodPost, "/undo", true, url.Values{"session": {"s-otter"}}, nil); a.code != http.StatusForbidden {
		t.Errorf("a POST without the CSRF token: %d", a.code)
	}
	sameTree(t, l.ZylosDir, before)

	done := srv.do(t, http.MethodPost, "/undo", true, csrfForm("session", "s-otter"), nil)
	if done.code != http.StatusOK {
		t.Fatalf("undo: %d\n%s", done.code, done.body)
	}
	mustContain(t, done, "reverted ", "undid the 1 change of session s-otter (")
	if got := testutil.ReadFile(t, l.CoreFile()); got != core {
		t.Errorf("core.md was not put back:\n%s", got)
	}
	if msg := gitOut(t, l, "log", "-1", "--format=%B"); !strings.Contains(msg, "Zylos-Command: dashboard undo") {
		t.Errorf("the journal's change:\n%s", msg)
	}
}

func TestRestoreAndUndoRefuseBadInputAndChangeNothing(t *testing.T) {
	l := testHome(t, true)
	srv := serve(t, l, nil)
	head := gitOut(t, l, "rev-parse", "HEAD")
	if err := os.Symlink(t.TempDir(), filepath.Join(l.MemoryDir(), "reference", "out")); err != nil {
		t.Fatal(err)
	}
	missing := strings.Repeat("ab", 20)
	cases := []struct {
		name, target string
		form         url.Values
		code         int
		says         string
	}{
		{"unknown rev", "/restore?rev=" + missing + "&file=core.md", csrfForm("rev", missing, "file", "core.md"), http.StatusNotFound, "journal"},
		{"not hex", "/restore?rev=HEAD&file=core.md", csrfForm("rev", "HEAD", "file", "core.md"), http.StatusBadRequest, "want a commit id"},
		{"no file", "/restore?rev=" + head, csrfForm("rev", head), http.StatusBadRequest, "No file given"},
		{"file not in that change", "/restore?rev=" + head + "&file=reference/nothing.md", csrfForm("rev", head, "file", "reference/nothing.md"), http.StatusNotFound, "did not exist at"},
		{"traversal", "/restore?rev=" + head + "&file=../x", csrfForm("rev", head, "file", "../x"), http.StatusBadRequest, "refused"},
		{"the journal itself", "/restore?rev=" + head + "&file=.git/config", csrfForm("rev", head, "file", ".git/config"), http.StatusBadRequest, "refused"},
		{"through a symlink out", "/restore?rev=" + head + "&file=reference/out/x.md", csrfForm("rev", head, "file", "reference/out/x.md"), http.StatusBadRequest, "leads outside memory/"},
		{"unknown session", "/undo?session=s-none", csrfForm("session", "s-none"), http.StatusNotFound, "has no change of session"},
		{"no session", "/undo", csrfForm(), http.StatusBadRequest, "want a session id"},
		{"an option as session", "/undo?session=--all", csrfForm("session", "--all"), http.StatusBadRequest, "want a session id"},
	}
	before := snapshot(t, l.ZylosDir)
	for _, c := range cases {
		get := srv.get(t, c.target)
		path, _, _ := strings.Cut(c.target, "?")
		post := srv.do(t, http.MethodPost, path, true, c.form, nil)
		for _, a := range []answer{get, post} {
			if a.code != c.code || !strings.Contains(a.body, c.says) || !strings.Contains(a.body, `id="error"`) {
				t.Errorf("%s: %d, want %d saying %q:\n%s", c.name, a.code, c.code, c.says, clip(a.body, 2000))
			}
		}
	}
	sameTree(t, l.ZylosDir, before)
	if got := gitOut(t, l, "rev-parse", "HEAD"); got != head {
		t.Errorf("the journal moved: %s", got)
	}
}

func TestTheFirstChangeOffersItsFilesToRestore(t *testing.T) {
	l := testHome(t, true)
	srv := serve(t, l, nil)
	first := gitOut(t, l, "rev-list", "--max-parents=0", "HEAD")
	page := srv.get(t, "/change?rev="+first)
	mustContain(t, page, `"restore?rev=`+first+`&amp;file=core.md`, "&#43;# Core")
	// The first change lists its first files only; a file's timeline
	// offers every change of it.
	mustContain(t, srv.get(t, "/timeline?file=reference/decisions.md"), `"restore?rev=`+first+`&amp;file=reference%2fdecisions.md`)
	confirm := srv.get(t, "/restore?rev="+first+"&file=reference/decisions.md")
	mustContain(t, confirm, "-### [2026-03-15] Pick the walrus queue", `name="rev" value="`+first+`"`)
}

// TestLinksOfOddFileNamesWork: a file whose name git lists in C quotes (a
// quote, a backslash) has working history and restore links.
func TestLinksOfOddFileNamesWork(t *testing.T) {
	l := testHome(t, true)
	srv := serve(t, l, nil)
	for _, name := range []string{`say "hi".md`, `back\slash.md`} {
		file := filepath.Join(l.ReferenceDir(), name)
		testutil.WriteFile(t, file, "# first\n")
		git(t, l, "add", "-A")
		git(t, l, "commit", "-q", "-m", "add "+name+"\n\nZylos-Source: tool\nZylos-Session: s-odd")
		rev := gitOut(t, l, "rev-parse", "HEAD")
		testutil.WriteFile(t, file, "# second\n")
		git(t, l, "commit", "-q", "-am", "edit "+name+"\n\nZylos-Source: tool\nZylos-Session: s-odd")

		// Follow the change page's links as a browser does.
		change := srv.get(t, "/change?rev="+rev)
		links := map[string]string{}
		for _, m := range regexp.MustCompile(`href="((timeline|restore)\?[^"]+)"`).FindAllStringSubmatch(change.body, -1) {
			if u := html.UnescapeString(m[1]); strings.Contains(u, "file=") {
				links[m[2]] = u
			}
		}
		if len(links) != 2 {
			t.Fatalf("%s: the change's file links: %q\n%s", name, links, clip(change.body, 3000))
		}
		if hist := srv.get(t, "/"+links["timeline"]); hist.code != http.StatusOK || !strings.Contains(hist.body, "edit "+html.EscapeString(name)) {
			t.Errorf("%s: history %d\n%s", name, hist.code, clip(hist.body, 3000))
		}
		if confirm := srv.get(t, "/"+links["restore"]); confirm.code != http.StatusOK || !strings.Contains(confirm.body, "&#43;# first") {
			t.Errorf("%s: restore confirmation %d\n%s", name, confirm.code, clip(confirm.body, 3000))
		}
	}
}
