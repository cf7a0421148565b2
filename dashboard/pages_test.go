package dashboard

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/doctor"
	"github.com/zylos/zylos-memory/fixture/benchtree"
	"github.com/zylos/zylos-memory/internal/testutil"
)

func TestOverviewShowsTheHomeAtAGlance(t *testing.T) {
	l := testHome(t, true)
	checked := make(chan struct{})
	srv := serve(t, l, func() []doctor.Check {
		defer close(checked)
		return []doctor.Check{{Status: doctor.Warn, Name: "core.md", Detail: "near its budget"}}
	})
	first := srv.get(t, "/")
	if first.code != http.StatusOK {
		t.Fatalf("overview: %d\n%s", first.code, first.body)
	}
	mustContain(t, first,
		"core.md", `class="gauge"`, "of 3072 bytes", // the budget gauge
		"records", "DECISION", "active", // entries and records by category and status
		`<strong id="backlog">15</strong>`, "(ids 26 ~ 40)", "Last checkpoint #2", "synced", // C4
		"memory-sync-periodic", "session-rotation-daily", // tasks
		"edit decisions.md", "s-42", "Edit", // the journal's last changes
		"last written") // the index
	<-checked
	var again answer
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if again = srv.get(t, "/"); strings.Contains(again.body, "near its budget") {
			break
		}
	}
	mustContain(t, again, `<tr class="st-warn"><td>warn</td><td>core.md</td><td>near its budget</td></tr>`)
}

func TestOverviewOfAV07HomeGaugesEachInjectedFile(t *testing.T) {
	l := testHome(t, false)
	os.Remove(l.CoreFile())
	for _, f := range []string{"identity.md", "state.md", "references.md"} {
		testutil.WriteFile(t, filepath.Join(l.MemoryDir(), f), "# "+f+"\n")
	}
	a := serve(t, l, nil).get(t, "/")
	mustContain(t, a, "(v07)", "identity.md", "state.md", "references.md")
	if n := strings.Count(a.body, `class="gauge"`); n != 3 {
		t.Errorf("%d gauges, want 3", n)
	}
}

func TestCorePageRendersMarkdownWithRawHTMLEscaped(t *testing.T) {
	l := testHome(t, true)
	a := serve(t, l, nil).get(t, "/core")
	mustContain(t, a, "<h2>Identity</h2>", "<strong>kafka</strong>", "&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;b&gt;bold&lt;/b&gt;",
		"init: seed memory") // its history
	if strings.Contains(a.body, "<script>") || strings.Contains(a.body, "<b>bold") || strings.Contains(a.body, "javascript:") {
		t.Errorf("raw HTML passed through:\n%s", a.body)
	}
}

func TestReferencePagesListFilesCategoriesAndEntries(t *testing.T) {
	l := testHome(t, true)
	srv := serve(t, l, nil)
	mustContain(t, srv.get(t, "/reference"), "memory/reference/decisions.md", "memory/reference/notes.md", "DECISION")
	file := srv.get(t, "/reference?file=memory/reference/decisions.md")
	mustContain(t, file, "Pick the walrus queue", `href="entry?path=memory%2freference%2fdecisions.md&line=`)
	cat := srv.get(t, "/reference?tier=records&category=DECISION&status=active")
	mustContain(t, cat, "2 in all", `"entry?path=memory%2frecords%2fdecisions%2f`)
}

func TestEntryPageShowsTextFieldsChangeLogAndJournal(t *testing.T) {
	l := testHome(t, true)
	srv := serve(t, l, nil)
	file := srv.get(t, "/reference?file=memory/reference/decisions.md")
	m := regexp.MustCompile(`"entry\?path=memory%2freference%2fdecisions.md&line=(\d+)">Pick the walrus`).FindStringSubmatch(file.body)
	if m == nil {
		t.Fatalf("no link to the entry:\n%s", file.body)
	}
	entry := srv.get(t, "/entry?path=memory/reference/decisions.md&line="+m[1])
	mustContain(t, entry, "Pick the walrus queue", "<th>Decision</th><td>walrus</td>", "edit decisions.md", "s-42")

	rec := filepath.Join(l.RecordsDir(), "decisions")
	des, err := os.ReadDir(rec)
	if err != nil || len(des) == 0 {
		t.Fatal(err)
	}
	name := des[0].Name()
	data := strings.Replace(testutil.ReadFile(t, filepath.Join(rec, name)), `"content"`,
		`"changes":[{"date":"2026-03-02","summary":"raised the limit","field":"x"}],"content"`, 1)
	testutil.WriteFile(t, filepath.Join(rec, name), data)
	a := srv.get(t, "/entry?path=memory/records/decisions/"+name)
	mustContain(t, a, "<th>x</th>", "raised the limit", "<th>category</th><td>decision</td>")
}

func TestSessionsCalendarAndDay(t *testing.T) {
	l := testHome(t, false)
	srv := serve(t, l, nil)
	cal := srv.get(t, "/sessions?year=2026")
	mustContain(t, cal, `<a href="day?date=2026-03-14">`, "2026-03-14: 4 lines", "2026-03-13: 3 lines", "2 days with a log in 2026")
	day := srv.get(t, "/day?date=2026-03-14")
	mustContain(t, day, `<tr id="L3"><td class="n"><a href="#L3">3</a></td><td>**09:00** - set the kafka consumer lag alert to 5000</td></tr>`,
		`href="day?date=2026-03-13"`)
	if a := srv.get(t, "/day?date=2020-01-01"); a.code != http.StatusNotFound || !strings.Contains(a.body, "No session log for 2020-01-01.") {
		t.Errorf("day without a log: %d\n%s", a.code, a.body)
	}
}

func TestSearchCitesAndLinks(t *testing.T) {
	l := testHome(t, false)
	srv := serve(t, l, nil)
	a := srv.get(t, "/search?q="+url.QueryEscape("kafka consumer lag"))
	mustContain(t, a, `<a href="day?date=2026-03-14#L3">memory/sessions/2026-03-14.md:3</a>`, "set the kafka consumer lag alert")
	c4 := srv.get(t, "/search?q=quokka&tier=c4")
	if !regexp.MustCompile(`<a href="message\?id=\d+">c4:\d+</a>`).MatchString(c4.body) {
		t.Errorf("no C4 citation link:\n%s", c4.body)
	}
	msg := srv.get(t, "/message?id=3")
	mustContain(t, msg, "IN (telegram):", "message about the quokka deployment c")
	rec := srv.get(t, "/search?q=note&tier=records")
	mustContain(t, rec, `<a href="entry?path=memory%2Frecords%2F`)
	mustContain(t, srv.get(t, "/search?q=xylophonequartz"), `<p id="no-hits">Nothing found.</p>`)
}

func TestTimelineFiltersAndShowsDiffs(t *testing.T) {
	l := testHome(t, true)
	srv := serve(t, l, nil)
	all := srv.get(t, "/timeline")
	mustContain(t, all, "edit decisions.md", "init: seed memory")
	bySession := srv.get(t, "/timeline?session=s-42")
	mustContain(t, bySession, "edit decisions.md")
	if strings.Contains(bySession.body, "init: seed memory") {
		t.Error("the session filter kept another session's change")
	}
	bySource := srv.get(t, "/timeline?source=command")
	if !strings.Contains(bySource.body, "init: seed memory") || strings.Contains(bySource.body, "edit decisions.md") {
		t.Errorf("source filter:\n%s", bySource.body)
	}
	byFile := srv.get(t, "/timeline?file=core.md")
	if !strings.Contains(byFile.body, "init: seed memory") || strings.Contains(byFile.body, "edit decisions.md") {
		t.Errorf("file filter:\n%s", byFile.body)
	}
	rev := regexp.MustCompile(`"change\?rev=([0-9a-f]{40})">[0-9a-f]+</a> edit decisions.md`).FindStringSubmatch(all.body)
	if rev == nil {
		t.Fatalf("no change link:\n%s", all.body)
	}
	mustContain(t, srv.get(t, "/change?rev="+rev[1]), "&#43;### [2026-03-15] Pick the walrus queue", "reference/decisions.md", "Edit")
}

func TestChartsDrawSizeFromTheJournalAndBacklogFromCheckpoints(t *testing.T) {
	l := testHome(t, true)
	srv := serve(t, l, nil)
	first := srv.get(t, "/charts")
	mustContain(t, first, "C4 backlog", "before checkpoint", "<polyline", "sessions")
	var a answer
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if a = srv.get(t, "/charts"); !strings.Contains(a.body, "more points are being read") {
			break
		}
	}
	mustContain(t, a, `aria-label="memory size per tier"`, ">reference</text>", ">core</text>")
	if strings.Contains(a.body, "more points are being read") {
		t.Error("the journal's sizes were never read")
	}
}

func TestUnknownPageIs404(t *testing.T) {
	srv := serve(t, testHome(t, false), nil)
	for _, p := range []string{"/nope", "/entry/x", "/core/", "/%2e%2e/etc/passwd"} {
		if a := srv.get(t, p); a.code != http.StatusNotFound || !strings.Contains(a.body, `id="error"`) {
			t.Errorf("%s: %d\n%s", p, a.code, a.body)
		}
	}
}

func TestLongListingsArePaged(t *testing.T) {
	l := testHome(t, false)
	benchtree.Entries(t, l, 500) // 250 decisions
	srv := serve(t, l, nil)
	first := srv.get(t, "/reference?file=memory/reference/decisions.md")
	mustContain(t, first, "250 in all, page 1 of 2.", `<a href="reference?file=memory%2Freference%2Fdecisions.md&amp;page=2">next</a>`)
	if n := strings.Count(first.body, `<a href="entry?path=`); n != pageSize {
		t.Errorf("%d entries on the first page, want %d", n, pageSize)
	}
	second := srv.get(t, "/reference?file=memory/reference/decisions.md&page=2")
	mustContain(t, second, "page 2 of 2", ">previous</a>")
	if n := strings.Count(second.body, `<a href="entry?path=`); n != 50 {
		t.Errorf("%d entries on the second page, want 50", n)
	}
	if a := srv.get(t, "/reference?file=memory/reference/decisions.md&page=0"); a.code != http.StatusBadRequest {
		t.Errorf("page 0: %d", a.code)
	}
}
