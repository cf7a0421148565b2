package records

import (
	"fmt"
	"maps"
	"slices"
)

// Team is what team memory says of a record, its optional "team" object:
// the home the record came from, whether it stays on this machine, and
// the text that lost a conflict, kept until someone resolves it. The zero
// Team is this home's own record, shared, with no conflict.
type Team struct {
	// Origin is the home the record came from; "" for this home's own.
	Origin string `json:"origin,omitempty"`
	// Private keeps the record on this machine: PrivateByHand, or
	// SecretMark(rule) for a record the secret scanner stopped; "" shares it.
	Private  string    `json:"private,omitempty"`
	Conflict *Conflict `json:"conflict,omitempty"`
}

// Conflict is the text of a record that lost a conflict: another home
// changed the record while this one did, and the other text is the
// record's now.
type Conflict struct {
	Home         string         `json:"home,omitempty"` // the home whose text this is
	At           string         `json:"at,omitempty"`   // when it was set aside (RFC 3339)
	Title        string         `json:"title,omitempty"`
	Content      map[string]any `json:"content,omitempty"`
	Tags         []string       `json:"tags,omitempty"`
	RecordStatus string         `json:"record_status,omitempty"`
}

// The values of Team.Private.
const (
	PrivateByHand = "by hand"
	secretPrefix  = "secret: "
)

// SecretMark is the private mark of a record the secret scanner's rule
// found a secret in ("secret: github-pat").
func SecretMark(rule string) string { return secretPrefix + rule }

// IsZero reports a Team with nothing to say.
func (t Team) IsZero() bool { return t.Origin == "" && t.Private == "" && t.Conflict == nil }

// TeamOf reads the team object of a record document (absent or not an
// object: the zero Team).
func TeamOf(d map[string]any) Team {
	m, _ := d["team"].(map[string]any)
	t := Team{Origin: doc(m).str("origin"), Private: doc(m).str("private")}
	if c, ok := m["conflict"].(map[string]any); ok && len(c) > 0 {
		cd := doc(c)
		t.Conflict = &Conflict{Home: cd.str("home"), At: cd.str("at"), Title: cd.str("title"),
			Content: cd.content(), RecordStatus: cd.str("record_status")}
		if _, ok := c["tags"]; ok {
			t.Conflict.Tags = cd.strings("tags")
		}
	}
	return t
}

// SetTeam sets the team object of a record document to t; for the
// zero Team an empty object, which a write reads as "no team" (a write
// whose input has no team object keeps the stored one). Which fields a
// write takes is the writer's rule (see WriteRequest.FromTeam); it
// stores no empty object.
func SetTeam(d map[string]any, t Team) {
	d["team"] = t.object()
}

func (t Team) object() map[string]any {
	m := map[string]any{}
	setString(m, "origin", t.Origin)
	setString(m, "private", t.Private)
	if c := t.Conflict; c != nil {
		cm := map[string]any{}
		setString(cm, "home", c.Home)
		setString(cm, "at", c.At)
		setString(cm, "title", c.Title)
		if c.Content != nil {
			cm["content"] = c.Content
		}
		if c.Tags != nil {
			cm["tags"] = anyList(c.Tags)
		}
		setString(cm, "record_status", c.RecordStatus)
		m["conflict"] = cm
	}
	return m
}

func setString(m map[string]any, key, v string) {
	if v != "" {
		m[key] = v
	}
}

// setTeamObject stores team as d's team object, or drops it when team
// has nothing to say.
func setTeamObject(d map[string]any, team map[string]any) {
	if len(team) == 0 {
		delete(d, "team")
		return
	}
	d["team"] = team
}

// exchangeOnly are the fields of team that only a team exchange's write
// sets or changes (WriteRequest.FromTeam); every other write keeps the
// stored ones.
var exchangeOnly = []string{"origin", "conflict"}

// teamAfter is the team object d is to be stored with, from stored (the
// record's, nil for none) and what d gives, when from (the FromTeam of
// the write) may change: an input without team keeps the stored one
// whole; one with team gives private (and, from a team exchange, origin
// and conflict too). Empty values read as absent. ok is false when d's
// team is there but no object: the schema reports it.
func teamAfter(stored map[string]any, d doc, from string) (team map[string]any, ok bool) {
	v, present := d["team"]
	if !present {
		return maps.Clone(stored), true
	}
	given, isObject := v.(map[string]any)
	if !isObject {
		return nil, false
	}
	// The input's own keys, unknown ones included, for the schema to judge.
	team = maps.Clone(given)
	if from == "" {
		for _, k := range exchangeOnly {
			if sv, ok := stored[k]; ok {
				team[k] = sv
			} else {
				delete(team, k)
			}
		}
	}
	for k, v := range team {
		if m, isMap := v.(map[string]any); v == nil || v == "" || isMap && len(m) == 0 {
			delete(team, k)
		}
	}
	return team, true
}

// createTeam applies the rule to a create: there is no stored team, so
// only a team exchange's create names an origin or a conflict.
func createTeam(d doc, from string) {
	if team, ok := teamAfter(nil, d, from); ok {
		setTeamObject(d, team)
	}
}

// mergeTeam applies the rule to an update, logging each change of the
// team object (before mergeChanges counts the new entries): an ordinary
// update that changes the record's title, tags or content while it has a
// conflict resolves it (the conflict is dropped, and logged as what was
// resolved).
func (m *merger) mergeTeam() error {
	stored, _ := m.old["team"].(map[string]any)
	team, ok := teamAfter(stored, m.new, m.fromTeam)
	if !ok {
		return nil
	}
	date := stamp(m.now)
	if c := team["conflict"]; c != nil && m.fromTeam == "" && textChanged(m.old, m.new) {
		m.new.logChange(resolved(c, date, "this edit"))
		delete(team, "conflict")
		stored = maps.Clone(stored)
		delete(stored, "conflict")
	}
	for _, c := range teamChanges(stored, team, m.fromTeam, date) {
		m.new.logChange(c)
	}
	setTeamObject(m.new, team)
	return nil
}

// resolveOnMove resolves d's conflict when an ordinary write moves its
// record_status (retire, archive, unarchive, restore).
func resolveOnMove(d doc, date string) {
	team, _ := d["team"].(map[string]any)
	c := team["conflict"]
	if c == nil {
		return
	}
	d.appendChange(resolved(c, date, "this change of its status"))
	team = maps.Clone(team)
	delete(team, "conflict")
	setTeamObject(d, team)
}

// textChanged reports whether an update changes what the record says:
// its title, its tags or its content.
func textChanged(old, d doc) bool {
	if old.str("title") != d.str("title") || !slices.Equal(sortedSet(old.strings("tags")), sortedSet(d.strings("tags"))) {
		return true
	}
	return !sameJSON(old["content"], d["content"])
}

// sameJSON reports whether a and b encode the same (a number read from a
// file and one a caller gives compare by value; object keys sort).
func sameJSON(a, b any) bool {
	ea, err1 := marshal(a)
	eb, err2 := marshal(b)
	return err1 == nil && err2 == nil && string(ea) == string(eb)
}

// resolved is the change that logs conflict c resolved by what the write
// did ("this edit").
func resolved(c any, date, by string) Change {
	return Change{Date: date, Field: "team.conflict",
		Summary:  fmt.Sprintf("conflict with %s's text resolved by %s", homeOf(c), by),
		OldValue: c, NewValue: nil}
}

func homeOf(c any) string {
	m, _ := c.(map[string]any)
	if h := doc(m).str("home"); h != "" {
		return h
	}
	return "another home"
}

// teamChanges logs how team differs from stored: an origin or a conflict
// set by a team exchange (from), a private mark set or cleared.
func teamChanges(stored, team map[string]any, from, date string) []Change {
	var out []Change
	if o, n := doc(stored).str("origin"), doc(team).str("origin"); o != n {
		summary := "origin: " + n
		if n == "" {
			summary = "origin cleared (was " + o + ")"
		}
		out = append(out, Change{Date: date, Field: "team.origin", Summary: summary, OldValue: stored["origin"], NewValue: team["origin"]})
	}
	if o, n := doc(stored).str("private"), doc(team).str("private"); o != n {
		summary := "marked private (" + n + ")"
		if n == "" {
			summary = "private mark cleared (was " + o + ")"
		}
		out = append(out, Change{Date: date, Field: "team.private", Summary: summary, OldValue: stored["private"], NewValue: team["private"]})
	}
	if o, n := stored["conflict"], team["conflict"]; !sameJSON(o, n) {
		var summary string
		switch home := homeOf(n); {
		case n == nil:
			summary = fmt.Sprintf("conflict with %s's text resolved by %s", homeOf(o), from)
		case home == from:
			summary = fmt.Sprintf("conflict: %s's text kept here, this home's text is the entry", home)
		default:
			summary = fmt.Sprintf("conflict: %s's text kept here, %s's text is the entry", home, from)
		}
		out = append(out, Change{Date: date, Field: "team.conflict", Summary: summary, OldValue: o, NewValue: n})
	}
	return out
}
