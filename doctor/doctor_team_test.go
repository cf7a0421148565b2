package doctor

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
	"github.com/zylos/zylos-memory/fixture/teamfixture"
	"github.com/zylos/zylos-memory/tiers/team"
)

// teamLines are the team's checks of a's home at now, one string each.
func teamLines(a *teamfixture.Member, now time.Time) []string {
	var out []string
	st, err := team.ReadStatus(a.Home.Layout)
	for _, c := range TeamChecks(st, err, now, time.UTC, time.Minute) {
		out = append(out, c.String())
	}
	return out
}

// wantLines fails unless got holds a line starting with each of wants,
// in order, and nothing else.
func wantLines(t *testing.T, got []string, wants ...string) {
	t.Helper()
	ok := len(got) == len(wants)
	for i := 0; ok && i < len(wants); i++ {
		ok = strings.HasPrefix(got[i], wants[i])
	}
	if !ok {
		t.Errorf("got\n%s\nwant lines starting\n%s", strings.Join(got, "\n"), strings.Join(wants, "\n"))
	}
}

func TestDoctorTeam(t *testing.T) {
	l := c4fixture.Home{Convs: -1}.Build(t)
	a, _ := teamfixture.Scenario(t, l, c4fixture.Start)

	lines := teamLines(a, a.Now.Add(3*time.Minute))
	wantLines(t, lines,
		"ok    team: in team at "+a.Remote+" as a, 2 members, last sync 2026-03-15 09:04 (3m ago)",
		"ok    team member b: published 2026-03-15 09:02 (5m ago); applied here 2026-03-15 09:03 (4m ago); 3 entries",
		"warn  team secrets: 1 entry kept local, for it holds a credential: decision/deploy-key (aws-access-key) (zylos-memory team status)",
		"warn  team conflicts: 1 entry keeps both texts, changed in two homes: decision/use-jwt (zylos-memory team conflicts)")
	if all := strings.Join(lines, "\n"); strings.Contains(all, "AKIA") {
		t.Errorf("a credential is shown:\n%s", all)
	}

	// Two days on, nothing synced: the syncs stopped, b is quiet.
	wantLines(t, teamLines(a, a.Now.Add(48*time.Hour)),
		"warn  team: in team at "+a.Remote+" as a, 2 members; no sync since 2026-03-15 09:04 (2 days ago), over 10 periods of 1m0s",
		"warn  team member b: published 2026-03-15 09:02 (2 days ago), over a day ago (is its home off, or its syncs failing?); applied here",
		"warn  team secrets:", "warn  team conflicts:")

	// b's ref deleted from the remote: b is gone, its entries stay.
	git(t, a.Remote, "update-ref", "-d", "refs/zylos/team/b")
	a.Sync()
	wantLines(t, teamLines(a, a.Now),
		"ok    team: in team at "+a.Remote+" as a, 1 member, last sync",
		"warn  team member b: its ref is gone from the remote (it left the team, or the ref was deleted); its 3 entries stay here",
		"warn  team secrets:", "warn  team conflicts:")

	// The remote unreachable: the sync's failure and since when.
	if err := os.Rename(a.Remote, a.Remote+".away"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		a.Now = a.Now.Add(time.Hour)
		if rep, err := team.Sync(context.Background(), a.Home, teamfixture.FindKeys); err != nil || rep.Problem == nil {
			t.Fatalf("sync with the remote away: %v %v", rep, err)
		}
	}
	got := teamLines(a, a.Now)
	wantLines(t, got, "warn  team: in team at "+a.Remote+" as a, 1 member; the last sync failed, and has since 2026-03-15 10:05 (1h ago): git fetch: ",
		"warn  team member b:", "warn  team secrets:", "warn  team conflicts:")
}

func TestDoctorTeamSaysNothingOfAHomeInNoTeam(t *testing.T) {
	if got := Team(c4fixture.Home{Convs: -1}.Build(t), c4fixture.Start, time.UTC, time.Minute); got != nil {
		t.Errorf("a home in no team: %v", got)
	}
}

func TestDoctorTeamOfAQuietHomeIsAllOK(t *testing.T) {
	a := teamfixture.NewHome(t, teamfixture.Remote(t), "a", c4fixture.Start)
	wantLines(t, teamLines(a, a.Now), "ok    team: in team at "+a.Remote+" as a, 1 member, not synced yet",
		"ok    team secrets: no entry kept local for a credential", "ok    team conflicts: none")
	a.Decide("use-jwt", "Use JWT", "jwt")
	a.Sync()
	wantLines(t, teamLines(a, a.Now),
		"ok    team: ", "ok    team secrets: no entry kept local for a credential", "ok    team conflicts: none")
}

func TestShownRemoteHidesCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://alice:s3cret@git.example.com/team.git": "https://***@git.example.com/team.git",
		"https://ghp_abcdef@github.com/org/team.git":    "https://***@github.com/org/team.git",
		"https://github.com/org/team.git":               "https://github.com/org/team.git",
		"ssh://git@host.example/team.git":               "ssh://git@host.example/team.git",
		"ssh://git:pw@host.example/team.git":            "ssh://***@host.example/team.git",
		"git@github.com:org/team.git":                   "git@github.com:org/team.git",
		"/srv/git/team.git":                             "/srv/git/team.git",
	} {
		if got := ShownRemote(in); got != want {
			t.Errorf("ShownRemote(%q) = %q, want %q", in, got, want)
		}
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestDoctorHomeEndsWithTheTeam: the doctor's whole list carries the
// team's lines, after the journal's.
func TestDoctorHomeEndsWithTheTeam(t *testing.T) {
	a := teamfixture.NewHome(t, teamfixture.Remote(t), "a", c4fixture.Start)
	a.Decide("use-jwt", "Use JWT", "jwt")
	a.Sync()
	checks := Home(context.Background(), a.Home)
	var names []string
	for _, c := range checks[max(len(checks)-5, 0):] {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ", "); got != "journal, team, team secrets, team conflicts, team secret scanner" {
		t.Errorf("the last checks: %s", got)
	}
	// The test binary has no scanner beside it: nothing new is shared,
	// and the doctor says so.
	if c := checks[len(checks)-1]; c.Status != Fail || !strings.Contains(c.Detail, "nothing new is shared") {
		t.Errorf("scanner check: %s", c)
	}
}
