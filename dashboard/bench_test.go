package dashboard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/fixture/benchtree"
	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/scheduler"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers/fulltext"
)

func TestMain(m *testing.M) {
	code := m.Run()
	benchtree.Cleanup()
	os.Exit(code)
}

// largeDashboard is the large home (3,650 logs, 10,000 records,
// 1,000,000 C4 rows) with its search index, scheduled tasks, core.md and
// a journal of three changes, served by a dashboard whose chart cache is
// warm.
func largeDashboard(b *testing.B) http.Handler {
	b.Helper()
	l := benchtree.LargeHome(b)
	if _, err := os.Stat(filepath.Join(l.MemoryDir(), ".git")); err != nil {
		testutil.WriteFile(b, l.CoreFile(), "# Core\n\n## Identity\n\nThe large home.\n")
		if _, err := scheduler.RegisterBuiltins(l, testNow); err != nil {
			b.Fatal(err)
		}
		ix, err := fulltext.Open(context.Background(), fulltext.ScopeOf(l, "", c4sync.OpenConversations), fulltext.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ix.Close()
		testutil.WriteFile(b, filepath.Join(l.MemoryDir(), ".gitignore"), ".state/\n")
		git(b, l, "init", "-q")
		git(b, l, "add", "-A")
		git(b, l, "commit", "-q", "-m", "init\n\nZylos-Source: command")
		for i, text := range []string{"one", "two"} {
			testutil.WriteFile(b, l.CoreFile(), testutil.ReadFile(b, l.CoreFile())+"\n- "+text+"\n")
			git(b, l, "commit", "-q", "-am", "core edit "+text+"\n\nZylos-Source: tool\nZylos-Session: s-"+string(rune('1'+i)))
		}
	}
	h := NewHandler(Options{Layout: l, Now: func() time.Time { return testNow }}, testToken, "127.0.0.1:1")
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if rec := benchGet(b, h, "/charts"); !strings.Contains(rec.Body.String(), "more points are being read") {
			break
		}
	}
	return h
}

func benchGet(tb testing.TB, h http.Handler, target string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:1"+testGuard.prefix+target, nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: testGuard.session})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("%s: %d\n%s", target, rec.Code, clip(rec.Body.String(), 2000))
	}
	return rec
}

// cpuTime is the CPU this process and its finished children (git) used:
// on a shared machine it says more of a page's cost than the wall clock.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}

// BenchmarkPageLarge renders each page of the dashboard of the large home
// (target: under 100 ms each); cpu-ms/op is the CPU a page took, git's
// included.
func BenchmarkPageLarge(b *testing.B) {
	h := largeDashboard(b)
	for _, p := range []struct{ name, target string }{
		{"overview", "/"},
		{"core", "/core"},
		{"reference", "/reference"},
		{"reference-file", "/reference?file=memory/reference/decisions.md"},
		{"reference-category", "/reference?tier=records&category=DECISION&status=active"},
		{"entry", "/entry?path=memory/reference/decisions.md&line=3"},
		{"record", "/entry?path=memory/records/decisions/kafka-cron-00000.json"},
		{"sessions", "/sessions?year=2025"},
		{"day", "/day?date=2026-03-14"},
		{"message", "/message?id=500000"},
		{"search", "/search?q=kafka+latency+after+the+deploy"},
		{"timeline", "/timeline"},
		{"timeline-session", "/timeline?session=s-1"},
		{"charts", "/charts"},
	} {
		b.Run(p.name, func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				benchGet(b, h, p.target)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}
