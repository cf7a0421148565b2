package records

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var serverConflict = map[string]any{"home": "server", "at": "2026-11-28T12:00:00Z", "title": "Use JWT for auth",
	"content": map[string]any{"status": "accepted", "context": "c", "decision": "sessions", "rationale": []any{"simple"}},
	"tags":    []any{"auth"}, "record_status": "active"}

// teamWrite runs one write of the fixture's decision, from the team
// exchange of home from ("" for an ordinary write); edit changes the
// stored document into the input of a create or an update.
func (f *fixture) teamWrite(action Action, from string, edit func(doc)) (Answer, error) {
	f.t.Helper()
	t, err := ResolveTarget(f.root, "", "decisions/use-jwt.json", action, "decision")
	if err != nil {
		f.t.Fatal(err)
	}
	r := WriteRequest{Action: action, Target: t, Now: testNow, FromTeam: from}
	if action.TakesInput() {
		d, _ := decodeDoc([]byte(storedDecision))
		if data, err := os.ReadFile(filepath.Join(f.root, "decisions/use-jwt.json")); err == nil {
			d, _ = decodeDoc(data)
		}
		edit(d)
		r.Input = InputOf(d)
	}
	return Write(r)
}

func (f *fixture) stored() doc {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join(f.root, "decisions/use-jwt.json"))
	if err != nil {
		f.t.Fatal(err)
	}
	d, err := decodeDoc(data)
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

func lastChange(d doc) map[string]any {
	l := d.list("changes")
	return l[len(l)-1].(map[string]any)
}

func setTeamOf(team map[string]any) func(doc) {
	return func(d doc) {
		d["team"] = team
		addChange(d)
	}
}

// TestTeamOriginAndConflictOnlyFromTeam: an ordinary write keeps the
// stored origin and conflict whatever its input says; a team exchange's
// write sets them and logs the conflict.
func TestTeamOriginAndConflictOnlyFromTeam(t *testing.T) {
	f := newFixture(t)
	forged := map[string]any{"origin": "laptop", "conflict": serverConflict}
	if _, err := f.teamWrite(ActionUpdate, "", setTeamOf(forged)); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.stored()["team"]; ok {
		t.Fatalf("an ordinary write set team: %v", f.stored()["team"])
	}
	if _, err := f.teamWrite(ActionUpdate, "laptop", setTeamOf(forged)); err != nil {
		t.Fatal(err)
	}
	d := f.stored()
	got := TeamOf(d)
	if got.Origin != "laptop" || got.Conflict == nil || got.Conflict.Home != "server" || got.Conflict.Content["decision"] != "sessions" {
		t.Fatalf("team after the exchange's write: %+v", got)
	}
	var logged []string
	for _, c := range d.list("changes") {
		if m := c.(map[string]any); strings.HasPrefix(doc(m).str("field"), "team.") {
			logged = append(logged, doc(m).str("field")+": "+doc(m).str("summary"))
		}
	}
	want := []string{"team.origin: origin: laptop", "team.conflict: conflict: server's text kept here, laptop's text is the entry"}
	if !reflect.DeepEqual(logged, want) {
		t.Fatalf("logged %q, want %q", logged, want)
	}

	// Ordinary writes: one without team keeps it whole; one giving team
	// without origin and conflict keeps them, and sets private.
	if _, err := f.teamWrite(ActionUpdate, "", func(d doc) { delete(d, "team"); addChange(d) }); err != nil {
		t.Fatal(err)
	}
	if TeamOf(f.stored()).Origin != "laptop" || TeamOf(f.stored()).Conflict == nil {
		t.Fatalf("an input without team dropped it: %+v", TeamOf(f.stored()))
	}
	if _, err := f.teamWrite(ActionUpdate, "", func(d doc) { d["team"] = map[string]any{"private": "by hand"} }); err != nil {
		t.Fatalf("a private mark alone logs the change an update needs: %v", err)
	}
	d = f.stored()
	if got := TeamOf(d); got.Origin != "laptop" || got.Conflict == nil || got.Private != PrivateByHand {
		t.Fatalf("team after an ordinary private mark: %+v", got)
	}
	if c := lastChange(d); c["field"] != "team.private" || c["summary"] != "marked private (by hand)" {
		t.Fatalf("last change %v", c)
	}
	// The conflict survives writes that change no text (the private mark).
	// The exchange clears it when the other home resolved it.
	if _, err := f.teamWrite(ActionUpdate, "server", setTeamOf(map[string]any{"origin": "laptop", "private": "by hand"})); err != nil {
		t.Fatal(err)
	}
	d = f.stored()
	if got := TeamOf(d); got.Conflict != nil || got.Origin != "laptop" {
		t.Fatalf("team after the exchange cleared the conflict: %+v", got)
	}
	if c := lastChange(d); c["summary"] != "conflict with server's text resolved by server" || c["old_value"] == nil {
		t.Fatalf("last change %v", c)
	}
}

// TestTeamConflictResolvedByAnOrdinaryEdit: an edit of the record's text
// while a conflict is set drops it and logs what was resolved; a write
// that changes no text keeps it.
func TestTeamConflictResolvedByAnOrdinaryEdit(t *testing.T) {
	for _, tt := range []struct {
		name     string
		edit     func(doc)
		resolves bool
	}{
		{"content", func(d doc) { d.content()["decision"] = "paseto" }, true},
		{"title", func(d doc) { d["title"] = "Use JWT for all auth"; addChange(d) }, true},
		{"tags", func(d doc) { d["tags"] = []any{"auth", "jwt", "tokens"}; addChange(d) }, true},
		{"related files only", func(d doc) { d["related_files"] = []any{"src/exists.go", "src/gone.go", "x"}; addChange(d) }, false},
		{"private only", func(d doc) { d["team"] = map[string]any{"private": "by hand"} }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if _, err := f.teamWrite(ActionUpdate, "server", setTeamOf(map[string]any{"conflict": serverConflict})); err != nil {
				t.Fatal(err)
			}
			if _, err := f.teamWrite(ActionUpdate, "", tt.edit); err != nil {
				t.Fatal(err)
			}
			d := f.stored()
			if resolved := TeamOf(d).Conflict == nil; resolved != tt.resolves {
				t.Fatalf("resolved = %v, want %v: %v", resolved, tt.resolves, d["team"])
			}
			if !tt.resolves {
				return
			}
			if _, ok := d["team"]; ok {
				t.Fatalf("an empty team stays: %v", d["team"])
			}
			var c map[string]any
			for _, ch := range d.list("changes") {
				if m := ch.(map[string]any); m["field"] == "team.conflict" {
					c = m
				}
			}
			if c == nil || c["summary"] != "conflict with server's text resolved by this edit" || !sameJSON(c["old_value"], serverConflict) {
				t.Fatalf("resolution logged as %v", c)
			}
		})
	}
}

// TestTeamConflictResolvedByAStatusMove: an ordinary retire resolves the
// conflict; the exchange's own retire keeps it.
func TestTeamConflictResolvedByAStatusMove(t *testing.T) {
	for _, from := range []string{"", "server"} {
		f := newFixture(t)
		if _, err := f.teamWrite(ActionUpdate, "server", setTeamOf(map[string]any{"origin": "server", "conflict": serverConflict})); err != nil {
			t.Fatal(err)
		}
		if _, err := f.teamWrite(ActionRetire, from, nil); err != nil {
			t.Fatal(err)
		}
		d := f.stored()
		if kept := TeamOf(d).Conflict != nil; kept != (from != "") {
			t.Fatalf("from %q: conflict kept = %v", from, kept)
		}
		if TeamOf(d).Origin != "server" {
			t.Fatalf("from %q: origin lost: %v", from, d["team"])
		}
		if from == "" && lastChange(d)["summary"] != "conflict with server's text resolved by this change of its status" {
			t.Fatalf("last change %v", lastChange(d))
		}
	}
}

// TestTeamOnCreate: an ordinary create keeps only the private mark of
// its input's team; a team exchange's create keeps it all.
func TestTeamOnCreate(t *testing.T) {
	for _, from := range []string{"", "laptop"} {
		f := newFixture(t)
		os.Remove(filepath.Join(f.root, "decisions/use-jwt.json"))
		team := map[string]any{"origin": "laptop", "private": "secret: github-pat", "conflict": serverConflict}
		if _, err := f.teamWrite(ActionCreate, from, func(d doc) { d["team"] = team }); err != nil {
			t.Fatal(err)
		}
		got := TeamOf(f.stored())
		want := Team{Private: SecretMark("github-pat")}
		if from != "" {
			want = TeamOf(map[string]any{"team": team})
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("from %q: team %+v, want %+v", from, got, want)
		}
	}
}

// TestTeamSchema: the team object's fields are checked, and a record
// read back carries them.
func TestTeamSchema(t *testing.T) {
	for _, tt := range []struct{ team, field string }{
		{`{"private": "yes"}`, "team.private"},
		{`{"bogus": 1}`, "team.bogus"},
		{`{"conflict": {"home": "x", "record_status": "gone"}}`, "team.conflict.record_status"},
		{`"laptop"`, "team"},
	} {
		var team any
		json.Unmarshal([]byte(tt.team), &team)
		f := newFixture(t)
		_, err := f.teamWrite(ActionUpdate, "laptop", setTeamOf(nil))
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.teamWrite(ActionUpdate, "laptop", func(d doc) { d["team"] = team; addChange(d) })
		var e *Error
		if !errors.As(err, &e) || e.Kind != ErrValidation || e.Fields[0][1] != tt.field {
			t.Errorf("team %s: want VALIDATION_ERROR on %s, got %v", tt.team, tt.field, err)
		}
	}
	f := newFixture(t)
	if _, err := f.teamWrite(ActionUpdate, "laptop", setTeamOf(map[string]any{"origin": "laptop", "conflict": serverConflict})); err != nil {
		t.Fatal(err)
	}
	r, err := ReadRecord(filepath.Join(f.root, "decisions/use-jwt.json"))
	if err != nil || r.Team == nil || r.Team.Origin != "laptop" || r.Team.Conflict.Tags[0] != "auth" {
		t.Fatalf("read back %+v, %v", r.Team, err)
	}
}

func TestSetTeamAndTeamOf(t *testing.T) {
	d := map[string]any{}
	team := Team{Origin: "laptop", Private: PrivateByHand, Conflict: &Conflict{Home: "server", Title: "T",
		Content: map[string]any{"body": "x"}, Tags: []string{"a"}, RecordStatus: StatusActive}}
	SetTeam(d, team)
	if got := TeamOf(d); !reflect.DeepEqual(got, team) {
		t.Fatalf("TeamOf(SetTeam(t)) = %+v, want %+v", got, team)
	}
	SetTeam(d, Team{})
	if m, ok := d["team"].(map[string]any); !ok || len(m) != 0 || !TeamOf(d).IsZero() {
		t.Fatalf("the zero Team is not an empty object: %v", d)
	}
}
