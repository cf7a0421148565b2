package entries

import (
	"strings"
	"testing"
)

func TestTeamComment(t *testing.T) {
	for _, tt := range []struct {
		team Team
		line string
	}{
		{Team{}, ""},
		{Team{From: "laptop"}, "<!-- team: from laptop -->"},
		{Team{Private: true}, "<!-- team: private -->"},
		{Team{Private: true, Why: "secret: github-pat"}, "<!-- team: private (secret: github-pat) -->"},
		{Team{From: "laptop", Conflict: true}, "<!-- team: from laptop; conflict: zylos-memory team conflicts -->"},
		{Team{From: "laptop", Private: true, Conflict: true}, "<!-- team: from laptop; private; conflict: zylos-memory team conflicts -->"},
		{Team{From: "a;b --> c\n", Why: "x"}, "<!-- team: from a,b -> c -->"},
	} {
		if got := TeamComment(tt.team); got != tt.line {
			t.Errorf("TeamComment(%+v) = %q, want %q", tt.team, got, tt.line)
		}
	}
}

func TestParseTeamComment(t *testing.T) {
	for _, tt := range []struct {
		line string
		team Team
		ok   bool
	}{
		{"<!-- team: private -->", Team{Private: true}, true},
		{"<!--team:private-->", Team{Private: true}, true},
		{"<!-- team: Private (secret: aws-key) -->", Team{Private: true, Why: "secret: aws-key"}, true},
		{"<!-- team: from laptop; private; conflict: zylos-memory team conflicts -->", Team{From: "laptop", Private: true, Conflict: true}, true},
		{"<!-- team: from: laptop; privately; bogus -->", Team{From: "laptop"}, true},
		{"<!-- team: -->", Team{}, true},
		{"<!-- id: team -->", Team{}, false},
		{"<!-- team private -->", Team{}, false},
		{"- <!-- team: private -->", Team{}, false},
	} {
		got, ok := ParseTeamComment(tt.line)
		if got != tt.team || ok != tt.ok {
			t.Errorf("ParseTeamComment(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.team, tt.ok)
		}
	}
}

// FuzzTeamComment: whatever a team holds, its comment is one line that is
// a team comment and reads back as it shows.
func FuzzTeamComment(f *testing.F) {
	f.Add("laptop", "secret: github-pat", true, true)
	f.Add(": x--->;\n", "(a))", false, true)
	f.Add("", "", true, false)
	f.Fuzz(func(t *testing.T, from, why string, private, conflict bool) {
		line := TeamComment(Team{From: from, Private: private, Why: why, Conflict: conflict})
		if line == "" {
			return
		}
		if strings.ContainsAny(line, "\r\n") || strings.Count(line, "-->") != 1 {
			t.Fatalf("not one comment line: %q", line)
		}
		back, ok := ParseTeamComment(strings.TrimSpace(line))
		if !ok || TeamComment(back) != line || back.Private != private || back.Conflict != conflict {
			t.Fatalf("%q reads back as %+v (%v)", line, back, ok)
		}
	})
}
