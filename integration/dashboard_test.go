package integration

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// The memory service serves the dashboard (package dashboard); `ui`
// prints its URL.

// dashboardURL waits for the service's address file and returns what
// `ui` prints.
func dashboardURL(tb testing.TB, zylos string) string {
	tb.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		res := testutil.Run{ZylosDir: zylos}.Exec(tb, "ui")
		if res.Code == 0 {
			return strings.TrimSpace(res.Stdout)
		}
		if time.Now().After(deadline) {
			tb.Fatalf("ui: %+v", res)
		}
	}
}

// browser is an HTTP client that keeps the dashboard's cookie.
func browser(tb testing.TB) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second}
}

// dashboardBase opens the dashboard's URL with c and returns the address
// its pages are under (the secret path, without its final slash): c then
// holds the cookie.
func dashboardBase(tb testing.TB, c *http.Client, url string) string {
	tb.Helper()
	resp, err := c.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("dashboard: %d", resp.StatusCode)
	}
	return strings.TrimSuffix(resp.Request.URL.String(), "/")
}

func fetch(tb testing.TB, c *http.Client, url string) (int, string) {
	tb.Helper()
	resp, err := c.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestUIWithoutTheServiceSaysWhy(t *testing.T) {
	zylos := hookHome(t, 5)
	res := testutil.Run{ZylosDir: zylos}.Exec(t, "ui")
	if res.Code != 1 || res.Stdout != "" || !strings.Contains(res.Stderr, "the memory service is not running") {
		t.Errorf("%+v", res)
	}
}

func TestTheServiceServesTheDashboardAndUIPrintsItsURL(t *testing.T) {
	zylos := hookHome(t, 5)
	d := startDaemon(t, zylos)
	url := dashboardURL(t, zylos)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
		t.Fatalf("ui printed %q", url)
	}
	d.waitLog(t, url) // `make run` shows it at start
	code, body := fetch(t, browser(t), url)
	if code != http.StatusOK || !strings.Contains(body, "<h1>Overview</h1>") || !strings.Contains(body, "memory-sync-periodic") {
		t.Fatalf("%d\n%s", code, body)
	}
	base, _, _ := strings.Cut(url, "/?")
	if code, _ := fetch(t, browser(t), base+"/"); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d", code)
	}
	if res := (testutil.Run{ZylosDir: zylos}).Exec(t, "doctor"); !strings.Contains(res.Stdout, "ok    dashboard: served on "+base) {
		t.Errorf("doctor:\n%s", res.Stdout)
	}
	st, err := os.Stat(filepath.Join(zylos, "memory", ".state", "dashboard.token"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v %v", st, err)
	}
}

func TestUIAddrOff(t *testing.T) {
	zylos := hookHome(t, 5)
	startDaemonEnv(t, zylos, nil, "--ui-addr=off")
	res := testutil.Run{ZylosDir: zylos}.Exec(t, "ui")
	if res.Code != 1 || !strings.Contains(res.Stderr, "the dashboard is not being served") {
		t.Errorf("%+v", res)
	}
	if res := (testutil.Run{ZylosDir: zylos}).Exec(t, "doctor"); !strings.Contains(res.Stdout, "ok    dashboard: not served (the service runs with --ui-addr=off)") {
		t.Errorf("doctor:\n%s", res.Stdout)
	}
}

func TestADashboardBeyondLoopbackIsWarnedOf(t *testing.T) {
	zylos := hookHome(t, 5)
	d := startDaemonEnv(t, zylos, nil, "--ui-addr=0.0.0.0:0")
	d.waitLog(t, "dashboard listens beyond the loopback interface")
	url := dashboardURL(t, zylos)
	if code, _ := fetch(t, browser(t), url); !strings.HasPrefix(url, "http://127.0.0.1:") || code != http.StatusOK {
		t.Errorf("%s: %d", url, code)
	}
	res := testutil.Run{ZylosDir: zylos}.Exec(t, "doctor")
	if !strings.Contains(res.Stdout, "warn  dashboard: served on ") || !strings.Contains(res.Stdout, "not the loopback interface") {
		t.Errorf("doctor:\n%s", res.Stdout)
	}
}

// BenchmarkHookPromptDashboardBusy times the prompt hook, answered by the
// memory service, with the service's dashboard idle (idle-ms) and while
// a client refreshes its pages without pause (busy-ms).
func BenchmarkHookPromptDashboardBusy(b *testing.B) {
	zylos := stormHome(b)
	startService(b, zylos)
	url := dashboardURL(b, zylos)
	client := browser(b)
	base := dashboardBase(b, client, url)
	// The overview's first view runs the doctor's checks in the
	// background (hook processes); time the hook after they are done.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, body := fetch(b, client, base+"/"); strings.Contains(body, "Checked ") && !strings.Contains(body, "Checking again") {
			break
		}
	}
	var busy atomic.Bool
	var inFlight sync.Mutex
	var pages atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		targets := []string{"/", "/search?q=kafka+consumer", "/charts", "/sessions", "/reference", "/timeline"}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if !busy.Load() {
				time.Sleep(time.Millisecond)
				continue
			}
			inFlight.Lock()
			if resp, err := client.Get(base + targets[i%len(targets)]); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				pages.Add(1)
			}
			inFlight.Unlock()
		}
	}()
	defer func() { close(stop); <-done }()
	run := testutil.Run{ZylosDir: zylos, Stdin: `{"prompt":"what did we decide about the kafka consumer lag?"}`}
	hook := func() time.Duration {
		t0 := time.Now()
		if res := run.Exec(b, "hook", "user-prompt-submit"); !strings.Contains(res.Stdout, "kafka") {
			b.Fatalf("hook answered %+v", res)
		}
		return time.Since(t0)
	}
	var idle, loaded time.Duration
	for b.Loop() {
		busy.Store(false)
		inFlight.Lock() // no page under way
		idle += hook()
		inFlight.Unlock()
		busy.Store(true)
		time.Sleep(2 * time.Millisecond) // a page is being drawn
		loaded += hook()
	}
	busy.Store(false)
	b.ReportMetric(ms(idle)/float64(b.N), "idle-ms")
	b.ReportMetric(ms(loaded)/float64(b.N), "busy-ms")
	b.ReportMetric(float64(loaded)/float64(idle), "ratio")
	b.ReportMetric(float64(pages.Load())/float64(b.N), "pages/op")
}

// TestTheServiceKeepsTheSearchIndex: on a fresh home, the dashboard's
// search (which never builds the index) works once the service runs, and
// finds a line written after it started.
func TestTheServiceKeepsTheSearchIndex(t *testing.T) {
	zylos := hookHome(t, 5)
	if _, err := os.Stat(filepath.Join(zylos, "memory", ".state", "search.db")); err == nil {
		t.Fatal("the fresh home already has a search index")
	}
	startDaemon(t, zylos)
	b := browser(t)
	search := func(q string) string {
		code, body := fetch(t, b, strings.Replace(dashboardURL(t, zylos), "/?token=", "/search?q="+q+"&token=", 1))
		if code != http.StatusOK {
			t.Fatalf("search %s: %d\n%s", q, code, body)
		}
		return body
	}
	waitFor := func(q string, wants ...string) {
		t.Helper()
		var body string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			body = search(q)
			for _, want := range wants {
				if strings.Contains(body, want) {
					return
				}
			}
		}
		t.Fatalf("search %s never showed any of %q:\n%s", q, wants, body)
	}
	// The entry, or its record: the service's catch-up rotation at start
	// may ingest decisions.md before the first search, and the search
	// shows an entry's record in its place.
	waitFor("SQLite", "memory/reference/decisions.md:3", "use-sqlite-for-the-conversation-log")
	log := filepath.Join(zylos, "memory", "sessions", "current.md")
	data, _ := os.ReadFile(log)
	if err := os.WriteFile(log, append(data, "\n**12:00** - the pangolin migration started\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor("pangolin", "the pangolin migration started")
}

// TestTheServiceRaisesItsFileLimit: started with a low soft limit of open
// files, the service runs with its hard limit, so its files are not the
// first to run out.
func TestTheServiceRaisesItsFileLimit(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Max <= 256 {
		t.Skipf("the hard limit of open files is %d (%v)", lim.Max, err)
	}
	low := lim
	low.Cur = 256
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	zylos := hookHome(t, 5)
	d := startDaemon(t, zylos) // inherits the low soft limit
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", d.cmd.Process.Pid))
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); strings.HasPrefix(line, "Max open files") && len(f) >= 5 {
			if f[3] != f[4] || f[3] == "256" {
				t.Errorf("the service's open files: soft %s, hard %s", f[3], f[4])
			}
			return
		}
	}
	t.Errorf("no open-files line in\n%s", data)
}
