package dashboard

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// chromiumPath finds the browser the end-to-end test drives.
func chromiumPath() (string, bool) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// artifactDir is where the browser test saves its screenshots:
// $ZYLOS_TEST_ARTIFACTS when set, else the test's temp dir.
func artifactDir(t *testing.T) string {
	dir := os.Getenv("ZYLOS_TEST_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	dir = filepath.Join(dir, "dashboard")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// newBrowser starts headless Chromium for one test, with a profile of its
// own and a deadline of 90 s; it stops with the test.
func newBrowser(t *testing.T, bin string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancel(); cancelBrowser(); cancelAlloc() })
	return ctx
}

// TestInABrowser opens the dashboard in headless Chromium as an operator
// does: the URL `zylos-memory ui` prints, the overview, a search, an
// entry, and restoring a file from the timeline.
func TestInABrowser(t *testing.T) {
	bin, ok := chromiumPath()
	if !ok {
		t.Skip("Chromium is not installed (apt-get install -y chromium; .ci/run installs it when it can)")
	}
	l := testHome(t, true)
	decisions := filepath.Join(l.ReferenceDir(), "decisions.md")
	testutil.WriteFile(t, decisions, strings.Replace(testutil.ReadFile(t, decisions), "- **Decision:** walrus", "- **Decision:** narwhal", 1))
	git(t, l, "commit", "-q", "-am", "edit decisions.md again\n\nZylos-Source: hook\nZylos-Session: s-43\nZylos-Tool: Edit")
	srv, err := Listen("127.0.0.1:0", Options{Layout: l, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	defer srv.Close()
	url, err := URL(l)
	if err != nil {
		t.Fatal(err)
	}
	shots := artifactDir(t)

	ctx := newBrowser(t, bin)

	step := func(name string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v (screenshots in %s)", name, err, shots)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	step("open the URL", chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("health")))
	location, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	overview, backlog := text("main"), text("#backlog")
	shot("1-overview")
	// Search from the header's form, as a person types it.
	step("search", chromedp.SendKeys(chromedp.CSS("header form.quick input[name=q]"), "kafka consumer lag\n"),
		chromedp.WaitVisible(chromedp.CSS("ol.hits")))
	results := text("ol.hits")
	shot("2-search")
	// Open an entry from the reference page.
	base := strings.TrimSuffix(location, "/")
	step("open an entry", chromedp.Navigate(base+"/reference?file=memory/reference/decisions.md"),
		chromedp.Click(chromedp.Search(`//a[text()="Pick the walrus queue"]`)),
		chromedp.WaitVisible(chromedp.CSS("article.entry")))
	entry := text("main")
	shot("3-entry")
	// Restore decisions.md as an earlier change left it: the file's
	// timeline, that change, its restore link, the confirmation.
	step("open the file's earlier change", chromedp.Navigate(base+"/timeline?file=reference/decisions.md"),
		chromedp.Click(chromedp.Search(`//td[contains(., "edit decisions.md") and not(contains(., "again"))]/a`)),
		chromedp.WaitVisible(chromedp.CSS("pre.diff")))
	step("confirm the restore", chromedp.Click(chromedp.Search(`//a[@class="restore" and contains(@href, "file=reference%2fdecisions.md")]`)),
		chromedp.WaitVisible(chromedp.ID("confirm")))
	confirm := text("main")
	shot("4-restore-confirm")
	step("restore", chromedp.Click(chromedp.ID("confirm")), chromedp.WaitVisible(chromedp.ID("result")))
	restored := text("#result")
	shot("5-restored")

	if strings.Contains(location, "token=") {
		t.Errorf("the token stayed in the address bar: %s", location)
	}
	for _, want := range []string{"Health", "core.md", "memory-sync-periodic", "edit decisions.md"} {
		if !strings.Contains(overview, want) {
			t.Errorf("overview lacks %q:\n%s", want, overview)
		}
	}
	if backlog != "15" {
		t.Errorf("backlog %q, want 15", backlog)
	}
	if !strings.Contains(results, "memory/sessions/2026-03-14.md:3") || !strings.Contains(results, "kafka consumer lag alert") {
		t.Errorf("search results:\n%s", results)
	}
	for _, want := range []string{"Pick the walrus queue", "walrus", "edit decisions.md", "s-42"} {
		if !strings.Contains(entry, want) {
			t.Errorf("entry page lacks %q:\n%s", want, entry)
		}
	}
	if !strings.Contains(confirm, "-- **Decision:** narwhal") || !strings.Contains(confirm, "+- **Decision:** walrus") {
		t.Errorf("the confirmation does not show the change to come:\n%s", confirm)
	}
	if !strings.HasPrefix(restored, "restored memory/reference/decisions.md as at ") {
		t.Errorf("result: %q", restored)
	}
	if data := testutil.ReadFile(t, decisions); strings.Contains(data, "narwhal") || !strings.Contains(data, "- **Decision:** walrus") {
		t.Errorf("decisions.md was not restored:\n%s", data)
	}
	t.Logf("screenshots in %s", shots)
}
