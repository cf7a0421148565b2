package dashboard

import (
	"errors"
	"io"
	"net/http"
	nurl "net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/doctor"
	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers"
)

func TestDefaultPortsDifferByHomeAndUserAndStay(t *testing.T) {
	a, b := tiers.Layout{ZylosDir: "/home/a/zylos"}, tiers.Layout{ZylosDir: "/home/b/zylos"}
	pa, pb, pu := DefaultPorts(a, 1000), DefaultPorts(b, 1000), DefaultPorts(a, 1001)
	if pa[0] == pb[0] || pa[0] == pu[0] {
		t.Errorf("first ports collide: %d %d %d", pa[0], pb[0], pu[0])
	}
	if again := DefaultPorts(tiers.Layout{ZylosDir: "/home/a/zylos/"}, 1000); again[0] != pa[0] {
		t.Errorf("not stable: %v vs %v", again, pa)
	}
	seen := map[int]bool{}
	for _, p := range pa {
		if p < portBase || p >= portBase+portSpan || seen[p] {
			t.Errorf("port %d out of range or repeated in %v", p, pa)
		}
		seen[p] = true
	}
}

func TestListenServesWritesItsAddressAndRemovesIt(t *testing.T) {
	l := testHome(t, false)
	srv, err := Listen("", Options{Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	if !srv.Loopback || !strings.HasPrefix(srv.Addr(), "127.0.0.1:") {
		t.Errorf("bound %s (loopback %v)", srv.Addr(), srv.Loopback)
	}
	st, err := os.Stat(TokenPath(l))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", st, err)
	}
	url, err := URL(l)
	if err != nil || url != srv.URL() {
		t.Fatalf("URL: %q %v, want %q", url, err, srv.URL())
	}
	jar := &cookieJar{}
	resp, err := (&http.Client{Jar: jar}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<h1>Overview</h1>") {
		t.Fatalf("%d\n%s", resp.StatusCode, body)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := URL(l); !errors.Is(err, ErrNotServing) {
		t.Errorf("after Close: %v", err)
	}

	// The token stays across restarts (a bookmark keeps working); a
	// token file readable by others is replaced.
	tok := testutil.ReadFile(t, TokenPath(l))
	again, err := Listen("127.0.0.1:0", Options{Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	if testutil.ReadFile(t, TokenPath(l)) != tok {
		t.Error("the token changed across restarts")
	}
	os.Chmod(TokenPath(l), 0o644)
	third, err := Listen("127.0.0.1:0", Options{Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	third.Close()
	st, _ = os.Stat(TokenPath(l))
	if testutil.ReadFile(t, TokenPath(l)) == tok || st.Mode().Perm() != 0o600 {
		t.Errorf("a token readable by others was kept (mode %v)", st.Mode())
	}
}

func TestListenFallsBackWhenTheDefaultPortIsTaken(t *testing.T) {
	l := testHome(t, false)
	first, err := Listen("", Options{Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := Listen("", Options{Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if first.Addr() == second.Addr() {
		t.Fatalf("both on %s", first.Addr())
	}
}

func TestListenRefusesABadAddress(t *testing.T) {
	l := testHome(t, false)
	for _, spec := range []string{"nonsense", "127.0.0.1", "256.0.0.1:80"} {
		if srv, err := Listen(spec, Options{Layout: l}); err == nil {
			srv.Close()
			t.Errorf("%q accepted", spec)
		}
	}
}

func TestAWildcardAddressIsWarnedOf(t *testing.T) {
	l := testHome(t, false)
	srv, err := Listen("0.0.0.0:0", Options{Layout: l})
	if err != nil {
		t.Skip(err)
	}
	go srv.Serve()
	defer srv.Close()
	if srv.Loopback {
		t.Error("0.0.0.0 counted as loopback")
	}
	resp, err := (&http.Client{Jar: &cookieJar{}}).Get(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "which is not the loopback interface") {
		t.Errorf("the overview does not warn:\n%s", body)
	}
}

// cookieJar keeps the dashboard's cookie between requests.
type cookieJar struct{ cookies []*http.Cookie }

func (j *cookieJar) SetCookies(_ *nurl.URL, cs []*http.Cookie) { j.cookies = append(j.cookies, cs...) }
func (j *cookieJar) Cookies(*nurl.URL) []*http.Cookie          { return j.cookies }

// TestHealthRunsWhenTheServiceStarts: the doctor's checks start with the
// dashboard, not with the first view of the overview, so that view has
// them.
func TestHealthRunsWhenTheServiceStarts(t *testing.T) {
	ran := make(chan struct{}, 1)
	srv, err := Listen("127.0.0.1:0", Options{Layout: testHome(t, false), Now: func() time.Time { return testNow },
		Health: func() []doctor.Check {
			ran <- struct{}{}
			return []doctor.Check{{Status: doctor.OK, Name: "started", Detail: "with the service"}}
		}})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	defer srv.Close()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the checks did not run before any page was viewed")
	}
}
