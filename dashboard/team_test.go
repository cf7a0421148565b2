package dashboard

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/zylos/zylos-memory/fixture/teamfixture"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestTeamPageShowsMembersConflictsAndSecrets: a home in a team with a
// conflict and an entry kept local for a credential shows its team, the
// other home, both texts of the conflict side by side, the entry kept
// local by its rule (never the credential) and what arrived; everything
// escaped, nothing on disk changed.
func TestTeamPageShowsMembersConflictsAndSecrets(t *testing.T) {
	l := testHome(t, true)
	a, _ := teamfixture.Scenario(t, l, testNow)
	srv := serve(t, l, nil)
	before := snapshot(t, l.ZylosDir)
	page := srv.get(t, "/team")
	if page.code != http.StatusOK {
		t.Fatalf("team: %d\n%s", page.code, page.body)
	}
	mustContain(t, page,
		`<a href="team" class="here">Team</a>`,
		"<code>"+a.Remote+"</code>", `<strong id="team-name">a</strong>`, "3 entries arrived from other homes in all",
		"<td>ok</td><td>team</td><td>in team at "+a.Remote+" as a, 2 members, last sync",
		"<tr><td>b</td><td>2026-03-15 10:02 ", // the other home, its last publish
		`<h3>Use JWT <span class="muted">decision/use-jwt</span></h3>`,
		`<a href="entry?path=memory%2frecords%2fdecisions%2fuse-jwt.json">memory/records/decisions/use-jwt.json</a>; the text kept beside it is this home's`,
		`<th>the entry now</th><th>kept beside it (this home, a)</th>`,
		`<tr class="differs"><th>decision</th><td>paseto &lt;em&gt;instead&lt;/em&gt;</td><td>jwt with rotation</td></tr>`,
		`<tr><th>record_status</th><td>active</td><td>active</td></tr>`,
		`<a href="entry?path=memory%2frecords%2fdecisions%2fdeploy-key.json">decision/deploy-key</a></td><td>aws-access-key</td>`,
		"zylos-memory team conflicts", "zylos-memory team status",
		"1 from b", `<a href="timeline?source=team">team</a>`) // what arrived, from the journal
	for _, leak := range []string{"AKIA", "<em>instead"} {
		if strings.Contains(page.body, leak) {
			t.Errorf("the page holds %q:\n%s", leak, page.body)
		}
	}
	mustContain(t, srv.get(t, "/"), `<a href="team">Team</a>`)
	sameTree(t, l.ZylosDir, before)
}

// TestNoTeamPageForAHomeInNoTeam: no menu entry, and the page is not
// found.
func TestNoTeamPageForAHomeInNoTeam(t *testing.T) {
	srv := serve(t, testHome(t, false), nil)
	if a := srv.get(t, "/"); strings.Contains(a.body, `href="team"`) {
		t.Errorf("the menu of a home in no team offers a team page")
	}
	a := srv.get(t, "/team")
	if a.code != http.StatusNotFound {
		t.Errorf("team page of a home in no team: %d", a.code)
	}
	mustContain(t, a, "This home is in no team")
}

// TestTeamPageInABrowser: the operator opens the team page from the menu
// in Chromium, sees the conflict's two texts side by side, and the page
// shows the next sync's arrivals without a reload.
func TestTeamPageInABrowser(t *testing.T) {
	bin, ok := chromiumPath()
	if !ok {
		t.Skip("Chromium is not installed (apt-get install -y chromium; .ci/run installs it when it can)")
	}
	l := testHome(t, true)
	a, b := teamfixture.Scenario(t, l, testNow)
	srv, err := Listen("127.0.0.1:0", Options{Layout: l, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	defer srv.Close()
	ctx := newBrowser(t, bin)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL()), chromedp.WaitVisible(chromedp.ID("health")),
		chromedp.Click(chromedp.Search(`//header//a[text()="Team"]`)), chromedp.WaitVisible(chromedp.CSS("table.sides"))); err != nil {
		t.Fatal(err)
	}
	sides, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("table.sides tr.differs")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sides, "paseto <em>instead</em>") || !strings.Contains(sides, "jwt with rotation") {
		t.Errorf("the conflict's texts side by side: %q", sides)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(artifactDir(t), "team.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.zylosSamePage = true`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the page has opened its stream

	b.Decide("adopt-okapi", "Adopt the okapi cache", "okapi")
	b.Sync()
	a.Sync()
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(wait, chromedp.WaitVisible(chromedp.Search(`//main//p[contains(., "4 entries arrived")]`))); err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
		t.Fatalf("the sync's arrival never appeared: %v\n%s", err, body)
	}
	if same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.zylosSamePage === true`)); err != nil || !same {
		t.Errorf("the page was reloaded (%v)", err)
	}
}

// TestTeamPageOfADamagedExchange: a state that cannot be read shows the
// membership with nothing synced; a membership that cannot be read is
// named, and the menu offers no team page; nothing fails.
func TestTeamPageOfADamagedExchange(t *testing.T) {
	l := testHome(t, false)
	teamfixture.Scenario(t, l, testNow)
	srv := serve(t, l, nil)
	dir := filepath.Join(l.StateDir(), "team")
	for _, state := range []string{"{not json", `{"members": {"b": null}, "refused": {"<b>x</b>": "secret: <i>rule</i>"}}`} {
		testutil.WriteFile(t, filepath.Join(dir, "state.json"), state)
		a := srv.get(t, "/team")
		if a.code != http.StatusOK || strings.Contains(a.body, "<b>x") || strings.Contains(a.body, "<i>rule") {
			t.Fatalf("team with the state %s: %d\n%s", state, a.code, a.body)
		}
		mustContain(t, a, `<strong id="team-name">a</strong>`, "No other home has published yet.",
			`<h3>Use JWT <span class="muted">decision/use-jwt</span></h3>`) // the conflict is in its record
	}
	testutil.WriteFile(t, filepath.Join(dir, "team.json"), `{"url": "<script>", "name": "../x"}`)
	a := srv.get(t, "/team")
	if a.code != http.StatusNotFound || strings.Contains(a.body, "<script>") || strings.Contains(a.body, `href="team"`) {
		t.Errorf("team with a damaged membership: %d\n%s", a.code, a.body)
	}
	mustContain(t, a, "not a team membership; join again")
}
