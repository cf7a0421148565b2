package dashboard

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/doctor"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// pages are every page of the dashboard.
var pages = []string{"/", "/core", "/reference", "/entry?path=memory/core.md&line=1", "/sessions", "/day?date=2026-03-14",
	"/message?id=1", "/search?q=kafka", "/timeline", "/change?rev=0123456789", "/charts", "/team", "/style.css", "/nope"}

func TestEveryRequestNeedsTheToken(t *testing.T) {
	srv := serve(t, testHome(t, false), nil)
	for _, p := range append(pages, "~/", "~/core", "~/style.css") {
		if a := srv.do(t, http.MethodGet, p, false, nil, nil); a.code != http.StatusUnauthorized || !strings.Contains(a.body, "zylos-memory ui") {
			t.Errorf("%s without a token: %d %q", p, a.code, a.body)
		}
		wrongCookie := func(r *http.Request) { r.AddCookie(&http.Cookie{Name: cookieName, Value: strings.Repeat("0", 64)}) }
		if a := srv.do(t, http.MethodGet, p, false, nil, wrongCookie); a.code != http.StatusUnauthorized {
			t.Errorf("%s with a wrong cookie: %d", p, a.code)
		}
	}
	if a := srv.do(t, http.MethodGet, "~/?token=nottheone", false, nil, nil); a.code != http.StatusUnauthorized || a.header.Get("Set-Cookie") != "" {
		t.Errorf("wrong token in the URL: %d, cookie %q", a.code, a.header.Get("Set-Cookie"))
	}
	if a := srv.do(t, http.MethodPost, "/health", false, url.Values{"csrf": {newGuard(testToken, nil).csrf}}, nil); a.code != http.StatusUnauthorized {
		t.Errorf("POST without a token: %d", a.code)
	}
}

func TestTheURLsTokenBecomesACookieOfTheSecretPathOnly(t *testing.T) {
	srv := serve(t, testHome(t, false), nil)
	a := srv.do(t, http.MethodGet, "~/search?q=kafka&token="+testToken, false, nil, nil)
	if want := testGuard.prefix + "/search?q=kafka"; a.code != http.StatusSeeOther || a.header.Get("Location") != want {
		t.Fatalf("token in the URL: %d to %q, want 303 to %s", a.code, a.header.Get("Location"), want)
	}
	cookie := a.header.Get("Set-Cookie")
	for _, want := range []string{cookieName + "=" + testGuard.session, "Path=" + testGuard.prefix + "/", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("cookie %q lacks %q", cookie, want)
		}
	}
	if strings.Contains(cookie, testToken) || strings.Contains(testGuard.prefix, testToken[:16]) {
		t.Errorf("the token itself leaves in the cookie or the path: %q %q", cookie, testGuard.prefix)
	}
	if a := srv.get(t, "/search?q=kafka"); a.code != http.StatusOK {
		t.Errorf("with the cookie: %d", a.code)
	}
	// The session value is no token: given as one, it is refused.
	if a := srv.do(t, http.MethodGet, "~/?token="+testGuard.session, false, nil, nil); a.code != http.StatusUnauthorized {
		t.Errorf("the cookie's value as a token: %d", a.code)
	}
	// The cookie outside the secret path, or the token as the cookie, opens nothing.
	withCookie := func(v string) func(*http.Request) {
		return func(r *http.Request) { r.AddCookie(&http.Cookie{Name: cookieName, Value: v}) }
	}
	for target, v := range map[string]string{"~/search?q=kafka": testGuard.session, "~/": testGuard.session, "/core": testToken} {
		if a := srv.do(t, http.MethodGet, target, false, nil, withCookie(v)); a.code != http.StatusUnauthorized {
			t.Errorf("%s with cookie %.8s…: %d", target, v, a.code)
		}
	}
	// An older cookie of the same name sent first does not hide this one.
	both := func(r *http.Request) {
		r.AddCookie(&http.Cookie{Name: cookieName, Value: testToken})
		r.AddCookie(&http.Cookie{Name: cookieName, Value: testGuard.session})
	}
	if a := srv.do(t, http.MethodGet, "/core", false, nil, both); a.code != http.StatusOK {
		t.Errorf("with an older cookie first: %d", a.code)
	}
	// The secret path without its slash is sent to the overview.
	if a := srv.do(t, http.MethodGet, "", true, nil, nil); a.code != http.StatusSeeOther || a.header.Get("Location") != testGuard.prefix+"/" {
		t.Errorf("the bare secret path: %d to %q", a.code, a.header.Get("Location"))
	}
}

// TestTheTokenRedirectStaysOnTheDashboard: a path that a browser would
// read as another host ("//evil.example/") is a path of this dashboard.
func TestTheTokenRedirectStaysOnTheDashboard(t *testing.T) {
	srv := serve(t, testHome(t, false), nil)
	for _, p := range []string{"//evil.example/", "///evil.example/", "/\\evil.example/", "/../..//evil.example", "/%2F%2Fevil.example/"} {
		a := srv.do(t, http.MethodGet, "~"+p+"?token="+testToken, false, nil, nil)
		loc := a.header.Get("Location")
		if a.code != http.StatusSeeOther || !strings.HasPrefix(loc, testGuard.prefix+"/") || strings.HasPrefix(loc, "//") || strings.Contains(loc, "\\") {
			t.Errorf("%s: %d to %q, want a path under %s", p, a.code, loc, testGuard.prefix)
		}
	}
}

// TestRefusalsCloseTheConnection: a client without the token keeps no
// connection open once it has its answer.
func TestRefusalsCloseTheConnection(t *testing.T) {
	srv := serve(t, testHome(t, false), nil)
	for _, target := range []string{"/", testGuard.prefix + "/core", "/?token=bad"} {
		conn, err := net.Dial("tcp", srv.host)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, srv.host)
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body) // ends only when the server closes
		conn.Close()
		if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
			t.Errorf("%s: %d, close %v, body %q", target, resp.StatusCode, resp.Close, body)
		}
	}
}

func TestHostMustBeTheBoundAddressOrLocalhost(t *testing.T) {
	srv := serve(t, testHome(t, false), nil)
	_, port, _ := strings.Cut(srv.host, ":")
	for host, want := range map[string]int{
		srv.host:                         http.StatusOK,
		"localhost:" + port:              http.StatusOK,
		"LOCALHOST:" + port:              http.StatusOK,
		"[::1]:" + port:                  http.StatusOK,
		"evil.example:" + port:           http.StatusMisdirectedRequest, // DNS rebinding
		"localhost":                      http.StatusMisdirectedRequest,
		"localhost:1":                    http.StatusMisdirectedRequest,
		"127.0.0.1.evil.example:" + port: http.StatusMisdirectedRequest,
	} {
		a := srv.do(t, http.MethodGet, "/core", true, nil, func(r *http.Request) { r.Host = host })
		if a.code != want {
			t.Errorf("Host %q: %d, want %d", host, a.code, want)
		}
	}
}

func TestAWildcardBindAdmitsIPLiteralsOnly(t *testing.T) {
	g := newGuard(testToken, []string{"0.0.0.0:8080"})
	for host, want := range map[string]bool{"192.168.1.5:8080": true, "[fe80::1]:8080": true, "localhost:8080": true,
		"evil.example:8080": false, "192.168.1.5:9090": false} {
		if got := g.hostAllowed(host); got != want {
			t.Errorf("%s: %v, want %v", host, got, want)
		}
	}
}

func TestEveryStateChangeIsAPostWithTheCSRFToken(t *testing.T) {
	runs := 0
	srv := serve(t, testHome(t, false), func() []doctor.Check { runs++; return nil })
	csrf := newGuard(testToken, nil).csrf
	cases := []struct {
		name   string
		method string
		form   url.Values
		origin string
		want   int
	}{
		{"no csrf", http.MethodPost, url.Values{}, "", http.StatusForbidden},
		{"wrong csrf", http.MethodPost, url.Values{"csrf": {strings.Repeat("a", 64)}}, "", http.StatusForbidden},
		{"the token as csrf", http.MethodPost, url.Values{"csrf": {testToken}}, "", http.StatusForbidden},
		{"another origin", http.MethodPost, url.Values{"csrf": {csrf}}, "http://evil.example", http.StatusForbidden},
		{"GET does not change state", http.MethodGet, nil, "", http.StatusMethodNotAllowed},
		{"PUT", http.MethodPut, url.Values{"csrf": {csrf}}, "", http.StatusMethodNotAllowed},
		{"good", http.MethodPost, url.Values{"csrf": {csrf}}, "", http.StatusSeeOther},
		{"good, own origin", http.MethodPost, url.Values{"csrf": {csrf}}, "http://" + srv.host, http.StatusSeeOther},
	}
	for _, c := range cases {
		a := srv.do(t, c.method, "/health", true, c.form, func(r *http.Request) {
			if c.origin != "" {
				r.Header.Set("Origin", c.origin)
			}
		})
		if a.code != c.want {
			t.Errorf("%s: %d, want %d (%s)", c.name, a.code, c.want, a.body)
		}
	}
	mustContain(t, srv.get(t, "/"), `<input type="hidden" name="csrf" value="`+csrf+`">`)
}

func TestEveryAnswerCarriesTheSecurityHeaders(t *testing.T) {
	srv := serve(t, testHome(t, false), nil)
	for _, p := range pages {
		for _, authed := range []bool{true, false} {
			a := srv.do(t, http.MethodGet, p, authed, nil, nil)
			if csp := a.header.Get("Content-Security-Policy"); csp != contentPolicy {
				t.Errorf("%s (token %v): CSP %q", p, authed, csp)
			}
			for h, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
				if got := a.header.Get(h); got != want {
					t.Errorf("%s: %s %q, want %q", p, h, got, want)
				}
			}
		}
	}
	// The one script is the dashboard's own file, never inline.
	if a := srv.get(t, "/"); strings.Count(a.body, "<script") != 1 || !strings.Contains(a.body, `<script src="live.js" defer></script>`) {
		t.Error("a page carries a script other than live.js")
	}
}

func TestAHugeQueryIsRefused(t *testing.T) {
	srv := serve(t, testHome(t, false), nil)
	if a := srv.get(t, "/search?q="+strings.Repeat("kafka+", 2000)); a.code != http.StatusRequestURITooLong {
		t.Errorf("8 KB query: %d", a.code)
	}
	if a := srv.get(t, "/search?q="+strings.Repeat("k", 600)); a.code != http.StatusBadRequest || !strings.Contains(a.body, "at most 500") {
		t.Errorf("600-byte search: %d %s", a.code, a.body)
	}
}

// TestNoParameterReachesOutsideMemory feeds every parameter traversal,
// encoded traversal, absolute paths, hidden files and a symlink out of
// memory/: each is refused with a clear page, shows nothing of what it
// aims at, and changes nothing on disk.
func TestNoParameterReachesOutsideMemory(t *testing.T) {
	l := testHome(t, true)
	outside := filepath.Join(filepath.Dir(l.ZylosDir), "secret.md")
	testutil.WriteFile(t, outside, "# TOPSECRET\n")
	if err := os.Symlink(outside, filepath.Join(l.ReferenceDir(), "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(l.ZylosDir), filepath.Join(l.MemoryDir(), "out")); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, l, nil)
	srv.get(t, "/") // a token file may be written on first use; not by a page
	before := snapshot(t, l.ZylosDir)
	hostile := []string{"..", "../..", "../../../../etc/passwd", "memory/../../secret.md", "memory/../../../etc/passwd",
		"%2e%2e%2f%2e%2e%2fsecret.md", "memory%2f..%2f..%2fsecret.md", "%252e%252e%252fsecret.md", "/etc/passwd",
		"memory/.state/dashboard.token", "memory/.state/search.db", "memory/.git/config", "memory//core.md", "./memory/core.md",
		"memory/reference/link.md", "memory/out/secret.md", "memory\\..\\..\\secret.md", "memory/core.md\x00.json", "memory/\xff.md",
		"-n", "--output=/tmp/x", "HEAD~1", "HEAD:core.md", strings.Repeat("a/", 600)}
	params := []string{"/entry?path=%s&line=1", "/entry?path=%s", "/reference?file=%s", "/reference?tier=%s&category=x",
		"/reference?category=x&page=%s", "/timeline?file=%s", "/timeline?session=%s", "/timeline?source=%s",
		"/change?rev=%s", "/day?date=%s", "/message?id=%s", "/search?q=kafka&tier=%s", "/sessions?year=%s", "/%s"}
	for _, p := range params {
		for _, h := range hostile {
			target := strings.Replace(p, "%s", url.QueryEscape(h), 1)
			if strings.HasPrefix(h, "%") {
				target = strings.Replace(p, "%s", h, 1) // as sent, already encoded
			}
			a := srv.get(t, target)
			if a.code >= 500 {
				t.Errorf("%s: %d %s", target, a.code, clip(a.body, 300))
			}
			for _, secret := range []string{"TOPSECRET", "root:x:", testToken, "[core]", "SQLite format"} {
				if strings.Contains(a.body, secret) {
					t.Errorf("%s shows %q", target, secret)
				}
			}
		}
	}
	sameTree(t, l.ZylosDir, before)
}
