package dashboard

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/zylos/zylos-memory/tiers"
)

// cookieSpy is a server on another port of the same host, as another
// local user could run one: it records every Cookie header a browser
// sends it.
type cookieSpy struct {
	mu      sync.Mutex
	cookies []string
	addr    string
}

func startCookieSpy(t *testing.T, host string) *cookieSpy {
	t.Helper()
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", host, err)
	}
	spy := &cookieSpy{addr: ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		spy.mu.Lock()
		if c := r.Header.Get("Cookie"); c != "" {
			spy.cookies = append(spy.cookies, r.URL.Path+": "+c)
		}
		spy.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><title>spy</title><p id="spy">spy</p><img src="/pixel.png"><img src="/` + "/index.png" + `">`))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return spy
}

func (s *cookieSpy) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cookies...)
}

// TestTheCookieReachesOnlyItsOwnDashboard opens two homes' dashboards in
// one browser, then pages served on other ports of 127.0.0.1 and on
// 127.0.0.2: neither spy receives a cookie, and each dashboard still
// opens after the other was opened (neither logs the other out).
func TestTheCookieReachesOnlyItsOwnDashboard(t *testing.T) {
	bin, ok := chromiumPath()
	if !ok {
		t.Skip("Chromium is not installed (apt-get install -y chromium; .ci/run installs it when it can)")
	}
	homes := []tiers.Layout{testHome(t, false), testHome(t, false)}
	var urls []string
	for _, l := range homes {
		srv, err := Listen("127.0.0.1:0", Options{Layout: l, Now: func() time.Time { return testNow }})
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve()
		t.Cleanup(func() { srv.Close() })
		urls = append(urls, srv.URL())
	}
	if urls[0][strings.Index(urls[0], "token="):] == urls[1][strings.Index(urls[1], "token="):] {
		t.Fatal("the two homes share a token")
	}
	spies := []*cookieSpy{startCookieSpy(t, "127.0.0.1"), startCookieSpy(t, "127.0.0.2")}
	ctx := newBrowser(t, bin)

	var homeURL [2]string
	for i, u := range urls {
		if err := chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.ID("health"))); err != nil {
			t.Fatalf("open home %d: %v", i, err)
		}
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		homeURL[i] = loc
	}
	for _, spy := range spies {
		for _, p := range []string{"/", "/core"} {
			if err := chromedp.Do(ctx, chromedp.Navigate("http://"+spy.addr+p), chromedp.WaitVisible(chromedp.ID("spy"))); err != nil {
				t.Fatalf("open the spy %s: %v", spy.addr, err)
			}
		}
	}
	for _, spy := range spies {
		if got := spy.seen(); len(got) != 0 {
			t.Errorf("the server on %s was sent cookies: %q", spy.addr, got)
		}
	}
	// Both homes still open, each with its own memory, in either order.
	for _, i := range []int{0, 1, 0} {
		if err := chromedp.Do(ctx, chromedp.Navigate(homeURL[i]+"core"), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
			t.Fatalf("home %d again: %v", i, err)
		}
		body, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(body, "needs its token") || !strings.Contains(body, homes[i].ZylosDir) {
			t.Errorf("home %d after the other was opened:\n%s", i, body)
		}
	}
}
