package dashboard

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers"
)

// TestEventsTellAPageOfAChange: the events stream names what changed
// when a source of the pages changes on disk.
func TestEventsTellAPageOfAChange(t *testing.T) {
	l := testHome(t, false)
	awaitEvent(t, l, "hooks", func() error { return os.MkdirAll(filepath.Join(l.StateDir(), "sessions", "s-live"), 0o700) })
	awaitEvent(t, l, "team", func() error { return os.MkdirAll(filepath.Join(l.StateDir(), "team"), 0o700) })
}

// awaitEvent listens to the events of l's dashboard, makes a change and
// fails unless the stream names what.
func awaitEvent(t *testing.T, l tiers.Layout, what string, change func() error) {
	t.Helper()
	srv := serve(t, l, nil)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+testGuard.prefix+"/events", nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: testGuard.session})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	time.Sleep(2 * watchEvery) // the watch has its first stamps
	if err := change(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case line := <-lines:
			if line == "data: "+what {
				return
			}
		case <-deadline:
			t.Fatalf("no event for %s", what)
		}
	}
}

// TestAHookWriteAppearsOnAnOpenTimeline: the timeline open in a browser
// shows a Write that a hook committed, within 2 s and without a reload.
func TestAHookWriteAppearsOnAnOpenTimeline(t *testing.T) {
	bin, ok := chromiumPath()
	if !ok {
		t.Skip("Chromium is not installed (apt-get install -y chromium; .ci/run installs it when it can)")
	}
	l := tiers.Layout{ZylosDir: filepath.Join(t.TempDir(), "zylos")}
	run := testutil.Run{ZylosDir: l.ZylosDir}
	if res := run.Exec(t, "init"); res.Code != 0 {
		t.Fatalf("init: %+v", res)
	}
	srv, err := Listen("127.0.0.1:0", Options{Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	defer srv.Close()
	ctx := newBrowser(t, bin)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL()), chromedp.WaitVisible(chromedp.ID("health"))); err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(loc+"timeline"), chromedp.WaitVisible(chromedp.CSS("table.changes"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.zylosSamePage = true`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the page has opened its stream

	decisions := filepath.Join(l.ReferenceDir(), "decisions.md")
	testutil.WriteFile(t, decisions, testutil.ReadFile(t, decisions)+"\n### [2026-03-15] Adopt the okapi cache\n- **Decision:** okapi\n")
	run.Stdin = `{"hook_event_name":"PostToolUse","session_id":"s-live","tool_name":"Write","tool_input":{"file_path":"` + decisions + `","content":"x"},"tool_response":{},"cwd":"/"}`
	if res := run.Exec(t, "hook", "post-tool-use"); res.Code != 0 {
		t.Fatalf("hook: %+v", res)
	}
	wrote := time.Now()
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	shown := chromedp.Do(wait, chromedp.WaitVisible(chromedp.Search(`//main//a[text()="s-live"]`)))
	took := time.Since(wrote)
	cancel()
	if shown != nil {
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
		t.Fatalf("the hook's change never appeared: %v\n%s", shown, body)
	}
	if same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.zylosSamePage === true`)); err != nil || !same {
		t.Errorf("the page was reloaded (%v)", err)
	}
	if took > 2*time.Second {
		t.Errorf("the change appeared after %v, want within 2 s", took)
	}
	t.Logf("the hook's change appeared %v after the hook", took.Round(time.Millisecond))
	if body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main"))); !strings.Contains(body, "s-live") {
		t.Errorf("timeline:\n%s", body)
	}
}
