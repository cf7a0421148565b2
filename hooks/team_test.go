package hooks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
	"github.com/zylos/zylos-memory/fixture/teamfixture"
	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/team"
)

const startInput = `{"hook_event_name":"SessionStart","source":"startup"}`

// TestSessionStartTellsTheTeamsNews: a home in a team hears once of what
// arrived and of an entry kept local for a credential, and of a conflict
// at every session start while it waits.
func TestSessionStartTellsTheTeamsNews(t *testing.T) {
	l := c4fixture.Home{Core: c4fixture.SampleCore, Convs: 3}.Build(t)
	a, b := teamfixture.Scenario(t, l, c4fixture.Start)
	cmd := "zylos-memory --zylos-dir /home/u/zylos"
	shown := func(text string) string { return strings.ReplaceAll(text, l.ZylosDir, "/home/u/zylos") }

	first, _ := answer(t, SessionStart, l, startInput)
	testutil.Golden(t, filepath.Join("testdata", "session_start_team.golden"), []byte(shown(first)))
	want := "Team: 3 memories arrived from other homes since the last session; 1 conflict waits (" + cmd +
		" team conflicts). 1 entry kept local: it holds a credential (" + cmd + " team status)."
	if !strings.Contains(shown(first), "\n\n"+want+"\n\n[") {
		t.Errorf("first session start lacks, between core memory and C4:\n%s\n---\n%s", want, first)
	}

	second, _ := answer(t, SessionStart, l, startInput)
	if want := "\n\nTeam: 1 conflict waits (" + cmd + " team conflicts).\n\n"; !strings.Contains(shown(second), want) || strings.Count(second, "Team:") != 1 {
		t.Errorf("second session start: want only the waiting conflict %q:\n%s", want, second)
	}

	b.Decide("new-one", "A new one", "n")
	b.Sync()
	a.Sync()
	third, _ := answer(t, SessionStart, l, startInput)
	if want := "\n\nTeam: 1 memory arrived from other homes since the last session; 1 conflict waits (" + cmd + " team conflicts).\n\n"; !strings.Contains(shown(third), want) {
		t.Errorf("third session start: want %q:\n%s", want, third)
	}
}

// TestSessionStartOfAQuietTeamHomeSaysNothingOfIt: a home in a team with
// nothing new gets the context of a home in no team.
func TestSessionStartOfAQuietTeamHomeSaysNothingOfIt(t *testing.T) {
	l := c4fixture.Home{Core: c4fixture.SampleCore, Convs: -1}.Build(t)
	a := teamfixture.Join(t, l, teamfixture.Remote(t), "a", c4fixture.Start)
	a.Decide("use-jwt", "Use JWT", "jwt")
	a.Sync()
	got, _ := answer(t, SessionStart, l, startInput)
	if want := testutil.ReadFile(t, filepath.Join("testdata", "session_start_core_only.golden")); got != want {
		t.Errorf("a quiet team home's context:\n%s\nwant as a home in no team's:\n%s", got, want)
	}
}

// TestSessionStartKeepsTheTeamsLineWhenCoreIsCut: the line has its room
// when core memory and the conversations are cut to fit the cap.
func TestSessionStartKeepsTheTeamsLineWhenCoreIsCut(t *testing.T) {
	l := c4fixture.Home{Core: strings.Repeat("A line of core memory.\n", 1000), Convs: 31, ConvSize: 2500}.Build(t)
	teamfixture.Scenario(t, l, c4fixture.Start)
	text, _ := answer(t, SessionStart, l, startInput)
	for _, want := range []string{"Team: 3 memories arrived", "[... truncated: ", "[Action Required]"} {
		if !strings.Contains(text, want) {
			t.Errorf("context lacks %q:\n%s", want, text)
		}
	}
}

// BenchmarkTeamLine is what the team costs a session start: a home in a
// team of 5,000 shared entries, whose state the sync left.
func BenchmarkTeamLine(b *testing.B) {
	l := c4fixture.Home{Convs: -1}.Build(b)
	teamfixture.Join(b, l, teamfixture.Remote(b), "a", c4fixture.Start)
	book := team.Book{Published: map[string]team.Published{}, History: map[string][]string{}, Seen: map[string]int{}}
	st := team.State{Refused: map[string]string{"decision/deploy-key": "secret: " + teamfixture.KeyRule}, Arrived: 40, Conflicts: 2}
	for i := range 5000 {
		key := fmt.Sprintf("decision/a-decision-of-the-team-%05d", i)
		book.Published[key] = team.Published{Digest: "0123456789abcdef01234567", Rev: 3}
		book.History[key] = []string{"0123456789abcdef01234567", "89abcdef0123456789abcdef", "456789abcdef0123456789ab"}
		book.Seen[key] = 3
	}
	for path, v := range map[string]any{"state.json": st, "entries.json": book} { // as the sync writes them
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			b.Fatal(err)
		}
		testutil.WriteFile(b, filepath.Join(l.StateDir(), "team", path), string(data))
	}
	for b.Loop() {
		if teamLine(l, "zylos-memory") == "" {
			b.Fatal("no line")
		}
	}
}
