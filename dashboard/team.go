package dashboard

import (
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/doctor"
	"github.com/zylos/zylos-memory/tiers/journal"
	"github.com/zylos/zylos-memory/tiers/records"
	"github.com/zylos/zylos-memory/tiers/team"
)

// arrivedShown bounds the changes from other homes the team page lists.
const arrivedShown = 30

type teamData struct {
	Remote, Name string
	Joined       stamp
	Checks       []doctor.Check
	LastSync     stamp
	LastError    string
	ErrorSince   stamp
	Arrived      int
	Members      []memberView
	Changes      []Change
	JournalErr   string
	Conflicts    []conflictView
	ConflictsErr string
	Refused      []refusedView
}

// stamp is a time of the team's state as a page shows it: when, and how
// long ago; Raw when it cannot be read as a time.
type stamp struct {
	At  time.Time
	Ago string
	Raw string
}

type memberView struct {
	Name      string
	Commit    string
	Published stamp
	Applied   stamp
	Entries   int
	Skipped   []string
	Gone      bool
	Late      bool // published over a day ago
}

// conflictView is an entry holding a conflict: the text it shows and the
// text kept beside it, field by field.
type conflictView struct {
	Key, Title, Record string
	Home               string // whose text is kept beside the entry
	Ours               bool   // Home is this home
	Found              stamp
	Rows               []conflictRow
	Err                string
}

type conflictRow struct {
	Field, Entry, Kept string
	Differs            bool
}

type refusedView struct {
	Key, Rule, Record string
}

// team shows the home's team: its membership and sync, the other homes,
// what arrived from them, the conflicts waiting (both texts side by
// side) and the entries kept local for a credential (by rule: never the
// credential). A home in no team has no team page.
func (s *site) team(r *http.Request) (page, error) {
	l := s.o.Layout
	st, err := team.ReadStatus(l)
	if errors.Is(err, team.ErrNotJoined) {
		return page{}, notFound("This home is in no team (zylos-memory team join URL).")
	}
	if st.URL == "" {
		return page{}, unreadable(err)
	}
	now := s.o.Now()
	loc, lerr := l.Location()
	if lerr != nil {
		loc = time.Local
	}
	d := teamData{Remote: doctor.ShownRemote(st.URL), Name: st.Name, Joined: s.stamp(st.Joined),
		Checks: doctor.TeamChecks(st, err, now, loc, s.home(r.Context()).Settings.TeamPeriod), LastSync: s.stamp(st.LastSync), LastError: st.LastError,
		ErrorSince: s.stamp(st.ErrorSince), Arrived: st.Arrived}
	for _, name := range st.Members() {
		m := st.State.Members[name]
		if m == nil {
			continue // a damaged state
		}
		mv := memberView{Name: name, Commit: m.Commit[:min(len(m.Commit), 10)], Published: s.stamp(m.PublishedAt),
			Applied: s.stamp(m.AppliedAt), Entries: m.Entries, Skipped: m.Skipped, Gone: m.Gone}
		mv.Late = !mv.Published.At.IsZero() && now.Sub(mv.Published.At) > 24*time.Hour
		d.Members = append(d.Members, mv)
	}
	if err != nil {
		d.ConflictsErr = err.Error()
	}
	for _, c := range st.Conflicts {
		cv := s.conflict(c)
		cv.Ours = cv.Home == st.Name
		d.Conflicts = append(d.Conflicts, cv)
	}
	keys := make([]string, 0, len(st.Refused))
	for key := range st.Refused {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		d.Refused = append(d.Refused, refusedView{Key: key, Rule: doctor.RefusedRule(st.Refused[key]), Record: s.recordOfKey(key)})
	}
	d.Changes, d.JournalErr = s.lastChanges(r.Context(), journal.Query{Source: journal.FromTeam, Limit: arrivedShown})
	return page{Name: "team", Title: "Team", Data: d}, nil
}

// stamp reads an RFC 3339 time of the state.
func (s *site) stamp(raw string) stamp {
	if raw == "" {
		return stamp{}
	}
	at, err := time.Parse(time.RFC3339, raw)
	if err != nil {
		return stamp{Raw: raw}
	}
	return stamp{At: at, Ago: doctor.Ago(s.o.Now().Sub(at))}
}

// conflict lays an entry's conflict out side by side: the title, the
// status and each field of the content, as the entry shows it now and
// as the text kept beside it says.
func (s *site) conflict(c team.ConflictEntry) conflictView {
	v := conflictView{Key: c.Key, Title: c.Title, Record: c.Record}
	if c.Conflict == nil {
		return v
	}
	v.Home, v.Found = c.Conflict.Home, s.stamp(c.Conflict.At)
	abs, err := memPath(s.o.Layout, c.Record)
	if err != nil {
		v.Err = err.Error()
		return v
	}
	rec, err := records.ReadRecord(abs)
	if err != nil {
		v.Err = err.Error()
		return v
	}
	row := func(field, entry, kept string) {
		v.Rows = append(v.Rows, conflictRow{Field: field, Entry: entry, Kept: kept, Differs: entry != kept})
	}
	row("title", rec.Title, c.Conflict.Title)
	row("record_status", rec.Status(), c.Conflict.RecordStatus)
	fields := make([]string, 0, len(rec.Content)+len(c.Conflict.Content))
	for k := range rec.Content {
		fields = append(fields, k)
	}
	for k := range c.Conflict.Content {
		if _, ok := rec.Content[k]; !ok {
			fields = append(fields, k)
		}
	}
	slices.Sort(fields)
	for _, k := range fields {
		row(k, records.FieldText(rec.Content[k]), records.FieldText(c.Conflict.Content[k]))
	}
	return v
}

// recordOfKey is the record of an entry named by its key (category/id),
// relative to the home, when it is there; "" otherwise.
func (s *site) recordOfKey(key string) string {
	for _, c := range team.Shared {
		if id, ok := strings.CutPrefix(key, c+"/"); ok && records.ValidID(id) {
			rel := "memory/records/" + records.Folder(c) + "/" + id + ".json"
			if _, err := memPath(s.o.Layout, rel); err == nil {
				return rel
			}
		}
	}
	return ""
}
