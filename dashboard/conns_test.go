package dashboard

import (
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// openFiles is how many descriptors this process holds.
func openFiles(t *testing.T) int {
	t.Helper()
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(des)
}

// TestSilentConnectionsTakeABoundedShareOfFiles opens many connections
// that never send the token, as another local user could: the service
// holds at most maxConns of them, and the owner's browser is still
// answered.
func TestSilentConnectionsTakeABoundedShareOfFiles(t *testing.T) {
	l := testHome(t, false)
	srv, err := Listen("127.0.0.1:0", Options{Layout: l, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	defer srv.Close()

	const silent = 600
	before := openFiles(t)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range silent {
		c, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// The server's own descriptors: all but the clients'.
	held, stable := 0, 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && stable < 5; time.Sleep(50 * time.Millisecond) {
		n := openFiles(t) - before - silent
		if n == held {
			stable++
		} else {
			held, stable = n, 0
		}
	}
	if held > maxConns+8 {
		t.Errorf("the service holds %d descriptors for %d silent connections, want at most %d", held, silent, maxConns)
	}

	// The owner's browser is answered all the same.
	jar := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := jar.Get(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookie := resp.Header.Get("Set-Cookie")
	req, _ := http.NewRequest(http.MethodGet, "http://"+srv.Addr()+resp.Header.Get("Location")+"core", nil)
	req.Header.Set("Cookie", strings.SplitN(cookie, ";", 2)[0])
	resp, err = jar.Do(req)
	if err != nil {
		t.Fatalf("the owner is not answered: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Core memory") {
		t.Errorf("the owner's page: %d\n%s", resp.StatusCode, clip(string(body), 2000))
	}
}

// TestTheCapEvictsTheOldestUnprovenConnection: at the cap a new
// connection takes the oldest place of a connection that showed no
// cookie; a proven one keeps its place.
func TestTheCapEvictsTheOldestUnprovenConnection(t *testing.T) {
	ln := newCapListener(nil, 2, 2)
	a, b, c := &cappedConn{l: ln, peer: "p"}, &cappedConn{l: ln, peer: "p"}, &cappedConn{l: ln, peer: "p"}
	for _, cc := range []*cappedConn{a, b} {
		if ok, ev := ln.admit(cc); !ok || ev != nil {
			t.Fatalf("admit under the cap: %v %v", ok, ev)
		}
	}
	a.prove()
	if ok, ev := ln.admit(c); !ok || ev != b {
		t.Fatalf("at the cap: admitted %v, evicted %v, want b", ok, ev)
	}
	c.prove()
	if ok, _ := ln.admit(&cappedConn{l: ln, peer: "p"}); ok || ln.open() != 2 {
		t.Errorf("every place proven: admitted %v, open %d", ok, ln.open())
	}
}
