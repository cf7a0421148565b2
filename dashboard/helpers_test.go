package dashboard

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/doctor"
	"github.com/zylos/zylos-memory/fixture/benchtree"
	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/scheduler"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/fulltext"
)

// testNow is the clock of the test homes.
var testNow = time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// testHome is a small home of every kind of memory: core.md, reference
// entries, records, two days of session logs, a C4 database with a
// checkpoint, the built-in scheduled tasks, a search index and, with
// journal, a memory/.git of two commits with provenance trailers.
func testHome(tb testing.TB, journal bool) tiers.Layout {
	tb.Helper()
	l := tiers.Layout{ZylosDir: filepath.Join(tb.TempDir(), "zylos")}
	if _, err := tiers.Init(l, testNow, false); err != nil {
		tb.Fatal(err)
	}
	testutil.WriteFile(tb, l.CoreFile(), "# Core\n\n## Identity\n\nI keep **kafka** notes.\n\n<script>alert(1)</script>\n\nInline <b>bold</b> tag. [click](javascript:alert(1))\n")
	benchtree.Records(tb, l.RecordsDir(), 12, benchtree.Mixed)
	benchtree.Entries(tb, l, 10)
	testutil.WriteFile(tb, filepath.Join(l.SessionsDir(), "2026-03-14.md"),
		"# Session Log: 2026-03-14\n\n**09:00** - set the kafka consumer lag alert to 5000\n**10:30** - reviewed the zebra migration\n")
	testutil.WriteFile(tb, filepath.Join(l.SessionsDir(), "2026-03-13.md"), "# Session Log: 2026-03-13\n\n**08:00** - quiet day\n")
	if _, err := c4sync.Create(l.C4DB()); err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open("sqlite3", l.C4DB())
	if err != nil {
		tb.Fatal(err)
	}
	for i := range 40 {
		ts := testNow.Add(time.Duration(i-40) * time.Minute).UTC().Format("2006-01-02 15:04:05")
		if _, err := db.Exec(`INSERT INTO conversations (timestamp, direction, channel, content) VALUES (?, 'in', 'telegram', ?)`,
			ts, "message about the quokka deployment "+string(rune('a'+i%26))); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO checkpoints (timestamp, summary, start_conversation_id, end_conversation_id) VALUES (?, 'synced', 1, 25)`,
		testNow.Add(-10*time.Minute).UTC().Format("2006-01-02 15:04:05")); err != nil {
		tb.Fatal(err)
	}
	db.Close()
	if _, err := scheduler.RegisterBuiltins(l, testNow); err != nil {
		tb.Fatal(err)
	}
	if err := fulltext.Rebuild(context.Background(), fulltext.ScopeOf(l, "", c4sync.OpenConversations)); err != nil {
		tb.Fatal(err)
	}
	if journal {
		testutil.WriteFile(tb, filepath.Join(l.MemoryDir(), ".gitignore"), ".state/\n")
		git(tb, l, "init", "-q")
		git(tb, l, "add", "-A")
		git(tb, l, "commit", "-q", "-m", "init: seed memory\n\nZylos-Source: command\nZylos-Session: s-init")
		testutil.WriteFile(tb, filepath.Join(l.ReferenceDir(), "decisions.md"), testutil.ReadFile(tb, filepath.Join(l.ReferenceDir(), "decisions.md"))+
			"### [2026-03-15] Pick the walrus queue\n- **Decision:** walrus\n- **Status:** active\n")
		git(tb, l, "add", "-A")
		git(tb, l, "commit", "-q", "-m", "edit decisions.md\n\nZylos-Source: tool\nZylos-Session: s-42\nZylos-Tool: Edit")
	}
	return l
}

func git(tb testing.TB, l tiers.Layout, args ...string) {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = l.MemoryDir()
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// testServer serves the dashboard of l on a loopback port.
type testServer struct {
	*httptest.Server
	host string // the bound host:port
}

func serve(tb testing.TB, l tiers.Layout, health func() []doctor.Check) *testServer {
	tb.Helper()
	srv := httptest.NewUnstartedServer(nil)
	addr := srv.Listener.Addr().String()
	srv.Config.Handler = NewHandler(Options{Layout: l, Now: func() time.Time { return testNow }, Health: health}, testToken, addr)
	srv.Start()
	tb.Cleanup(srv.Close)
	return &testServer{Server: srv, host: addr}
}

// answer is one response, its body read.
type answer struct {
	code   int
	header http.Header
	body   string
}

// testGuard is the guard of testToken: its secret path and cookie.
var testGuard = newGuard(testToken, nil)

// do sends a request for target under the dashboard's secret path (a
// target that starts with "~" is sent as it is, without the "~"); with
// authed it carries the session cookie.
func (s *testServer) do(tb testing.TB, method, target string, authed bool, form url.Values, edit func(*http.Request)) answer {
	tb.Helper()
	if raw, ok := strings.CutPrefix(target, "~"); ok {
		target = raw
	} else {
		target = testGuard.prefix + target
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, s.URL+target, body)
	if err != nil {
		tb.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if authed {
		req.AddCookie(&http.Cookie{Name: cookieName, Value: testGuard.session})
	}
	if edit != nil {
		edit(req)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(data)}
}

func (s *testServer) get(tb testing.TB, target string) answer {
	tb.Helper()
	return s.do(tb, http.MethodGet, target, true, nil, nil)
}

// mustContain fails for each of wants missing from a page.
func mustContain(tb testing.TB, a answer, wants ...string) {
	tb.Helper()
	for _, w := range wants {
		if !strings.Contains(a.body, w) {
			tb.Errorf("page (%d) lacks %q:\n%s", a.code, w, clip(a.body, 6000))
		}
	}
}

// snapshot digests every file under root but SQLite's own -wal and -shm
// files, which a reader of a WAL database may create: what a page must
// never change.
func snapshot(tb testing.TB, root string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.HasSuffix(p, "-wal") || strings.HasSuffix(p, "-shm") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[p] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// sameTree fails for every file added, removed or changed since before.
func sameTree(tb testing.TB, root string, before map[string]string) {
	tb.Helper()
	after := snapshot(tb, root)
	for p, sum := range before {
		if after[p] != sum {
			tb.Errorf("%s changed or went", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			tb.Errorf("%s appeared", p)
		}
	}
}
