package bridge

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// spec maps one kind of reference entry to its record category. Every
// mapped field is a markdown field of the entry and a key of the record's
// content; the title is the record's title, and a decision's heading date
// is content.date (created_at's date when the record has none).
type spec struct {
	kind     entries.Kind
	category string
	file     string // default file, relative to the memory dir
	fields   [maxFields]field
}

const maxFields = 3

type field struct {
	name     string // markdown field, "Status"
	key      string // content key, "status"
	required bool   // rendered even when empty
	// toEntry and toContent translate values where the vocabularies
	// differ; nil means the value is the same on both sides.
	toEntry   func(string) string
	toContent func(string) string
}

// decisionStatus maps a record's content.status to a decision entry's
// Status word; contentStatus maps back. "proposed" has no word of its own
// in the markdown: it shows as active, and the record keeps "proposed"
// until the entry's Status is edited.
var decisionStatus = map[string]string{
	"accepted": "active", "proposed": "active", "superseded": "superseded", "deprecated": "archived",
}

var contentStatus = map[string]string{
	"active": "accepted", "superseded": "superseded", "archived": "deprecated",
}

func mapped(m map[string]string) func(string) string {
	return func(s string) string {
		if v, ok := m[s]; ok {
			return v
		}
		return s
	}
}

var specs = []spec{
	{kind: entries.KindDecision, category: "decision", file: "reference/decisions.md", fields: [maxFields]field{
		{name: "Decision", key: "decision", required: true},
		{name: "Context", key: "context"},
		{name: "Status", key: "status", required: true, toEntry: mapped(decisionStatus), toContent: mapped(contentStatus)},
	}},
	{kind: entries.KindProject, category: "project", file: "reference/projects.md", fields: [maxFields]field{
		{name: "Status", key: "status", required: true},
		{name: "Updated", key: "updated", required: true},
		{name: "Notes", key: "notes"},
	}},
	{kind: entries.KindPreference, category: "preference", file: "reference/preferences.md", fields: [maxFields]field{
		{name: "Value", key: "value", required: true},
		{name: "Source", key: "reason"},
		{name: "Added", key: "added"},
	}},
	// A "### Title" entry of any other reference file (ideas.md) is a
	// note: its title and its text under the heading (content.body).
	{kind: entries.KindGeneric, category: "note", file: "reference/notes.md"},
}

func specOfKind(k entries.Kind) *spec {
	for i := range specs {
		if specs[i].kind == k {
			return &specs[i]
		}
	}
	return nil
}

// archives reports whether an archived record of the kind has an
// archive file (archive/decisions-YYYY.md, archive/projects-YYYY.md); an
// archived preference or note is in no file.
func (s *spec) archives() bool {
	return s.kind == entries.KindDecision || s.kind == entries.KindProject
}

func specOfCategory(c string) *spec {
	for i := range specs {
		if specs[i].category == c {
			return &specs[i]
		}
	}
	return nil
}

// projection is what an entry says, in the entry's own terms: the part
// of it a record holds. Two projections compare with ==.
type projection struct {
	title, date string
	fields      [maxFields]string
	body        string // a note's text (see noteBody)
	// team is the entry's team comment line (trimmed), "" without one;
	// private says it marks the entry private, the one part of it read
	// into the record (see said).
	team    string
	private bool
}

// said is the part of p an entry says to its record: all of it but the
// team comment's attributes that are only shown (from, conflict).
func (p projection) said() projection {
	p.team = ""
	return p
}

// entryProjection reads an entry. The title is sanitized as records
// sanitize titles, so a title the record cannot hold as written (one
// with "->" in it) still compares equal to the record made from it.
func (s *spec) entryProjection(e entries.Entry) projection {
	p := projection{title: records.SanitizeTitle(e.Title)}
	if s.kind == entries.KindDecision && !e.Date.IsZero() {
		p.date = e.Date.Format(dateLayout)
	}
	for i, f := range s.fields {
		switch f.name {
		case "":
		case "Status":
			p.fields[i] = e.Status()
		default:
			p.fields[i] = e.Fields[f.name]
		}
	}
	if s.kind == entries.KindGeneric {
		p.body = noteBody(e.Text, true)
	}
	if p.team = teamLineOf(e.Text); p.team != "" {
		t, _ := entries.ParseTeamComment(p.team)
		p.private = t.Private
	}
	return p
}

// teamLineOf is the first team comment line of an entry's text, outside
// fenced code (trimmed), or "".
func teamLineOf(text string) string {
	if !strings.Contains(text, "team:") {
		return ""
	}
	found := ""
	src := []byte(text)
	entries.PlainLines(src, 0, len(src), func(_, _ int, line string) bool {
		if entries.IsTeamComment(line) {
			found = line
			return false
		}
		return true
	})
	return found
}

// teamShown is what the team comment of an entry shows of its record's
// team: its origin, whether it is private (and why, unless by hand), and
// whether it has a conflict.
func teamShown(t *records.Team) entries.Team {
	if t == nil {
		return entries.Team{}
	}
	shown := entries.Team{From: t.Origin, Private: t.Private != "", Conflict: t.Conflict != nil}
	if t.Private != records.PrivateByHand {
		shown.Why = t.Private
	}
	return shown
}

// noteBody is a note's text as both sides compare it: the lines under
// the heading (without it, and without the id and team comments when
// entry is set), "\r\n" read as "\n", blank lines before and after
// dropped. Every other byte, indentation and trailing spaces included,
// counts.
func noteBody(text string, entry bool) string {
	lines := strings.Split(text, "\n")
	if entry {
		lines = lines[1:]
	}
	kept := lines[:0:0]
	fence := ""
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		t := strings.TrimSpace(l)
		switch {
		case !entry:
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		case isIDComment(t), entries.IsTeamComment(t):
			continue
		}
		kept = append(kept, l)
	}
	for len(kept) > 0 && strings.TrimSpace(kept[0]) == "" {
		kept = kept[1:]
	}
	for len(kept) > 0 && strings.TrimSpace(kept[len(kept)-1]) == "" {
		kept = kept[:len(kept)-1]
	}
	return strings.Join(kept, "\n")
}

// recordProjection is what the record's entry says, before markdown
// parsing has its say (see same).
func (s *spec) recordProjection(r *records.Record) projection {
	p := projection{title: r.Title}
	if s.kind == entries.KindDecision {
		p.date = recordDate(r)
	}
	for i, f := range s.fields {
		v := flatten(contentString(r, f.key))
		if f.toEntry != nil {
			v = f.toEntry(v)
		}
		p.fields[i] = v
	}
	if s.kind == entries.KindProject && p.fields[1] == "" {
		p.fields[1] = datePart(r.UpdatedAt)
	}
	if s.kind == entries.KindGeneric {
		p.body = noteBody(contentString(r, "body"), false)
	}
	p.team, p.private = recordTeam(r)
	return p
}

// recordTeam is the team comment line of r's entry ("" for none) and
// whether r is private.
func recordTeam(r *records.Record) (string, bool) {
	return entries.TeamComment(teamShown(r.Team)), r.Team != nil && r.Team.Private != ""
}

const dateLayout = "2006-01-02"

// recordDate is a decision's date: content.date, else the day it was
// created.
func recordDate(r *records.Record) string {
	if d := contentString(r, "date"); d != "" {
		return flatten(d)
	}
	return datePart(r.CreatedAt)
}

func datePart(stamp string) string {
	if len(stamp) >= len(dateLayout) {
		if _, err := time.Parse(dateLayout, stamp[:len(dateLayout)]); err == nil {
			return stamp[:len(dateLayout)]
		}
	}
	return ""
}

func contentString(r *records.Record, key string) string {
	switch v := r.Content[key].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// flatten puts a value on one line the way the entry parser reads a
// field: each line trimmed, joined by one space.
func flatten(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return strings.TrimSpace(s)
	}
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	kept := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, " ")
}

// values is what entry e says of each mapped field, translated into the
// record's vocabulary.
func (s *spec) contentValue(i int, v string) string {
	if f := s.fields[i]; f.toContent != nil {
		return f.toContent(v)
	}
	return v
}

// newDoc is the record made from entry e, to be stored as id, private
// by hand when its team comment says private. Content the markdown has
// no field for gets a value the schema accepts: a decision's rationale
// is its context (else its decision), a preference's topic is its title
// and its strength "default".
func (s *spec) newDoc(e entries.Entry, id, rel, now string) map[string]any {
	p := s.entryProjection(e)
	content := map[string]any{}
	for i, f := range s.fields {
		if v := p.fields[i]; f.key != "" && (v != "" || f.required) {
			content[f.key] = s.contentValue(i, v)
		}
	}
	tag := strings.TrimSuffix(s.file[len("reference/"):], ".md")
	switch s.kind {
	case entries.KindGeneric:
		content["body"] = p.body
		tag = strings.TrimSuffix(path.Base(rel), ".md")
	case entries.KindDecision:
		content["date"] = p.date
		if _, ok := content["context"]; !ok {
			content["context"] = ""
		}
		content["rationale"] = []any{firstOf(p.fields[1], p.fields[0], p.title)}
	case entries.KindPreference:
		content["topic"] = p.title
		content["strength"] = "default"
		if _, ok := content["reason"]; !ok {
			content["reason"] = ""
		}
	}
	d := records.NewDocument(s.category, id, p.title, now)
	d["tags"], d["related_files"], d["content"] = []any{tag}, []any{"memory/" + rel}, content
	if p.private {
		records.SetTeam(d, records.Team{Private: records.PrivateByHand})
	}
	records.AddChange(d, now, "created from the entry in memory/"+rel)
	return d
}

// updateDoc is st's record with what entry e says: its title, every
// mapped field that differs from what the record shows and a private
// mark put on or taken off, its file listed in related_files (last, as
// where the entry lives now), and a change with summary. Everything else
// of the record is kept.
func (s *spec) updateDoc(st *stored, e entries.Entry, rel, now, summary string) (map[string]any, error) {
	d, err := decodeObject(st.data)
	if err != nil {
		return nil, fmt.Errorf("read record %s: %w", st.abs, err)
	}
	have, shown := s.entryProjection(e), s.shown(st.rec)
	d["title"] = have.title
	content, _ := d["content"].(map[string]any)
	if content == nil {
		content = map[string]any{}
		d["content"] = content
	}
	for i, f := range s.fields {
		if f.key != "" && have.fields[i] != shown.fields[i] {
			content[f.key] = s.contentValue(i, have.fields[i])
		}
	}
	if s.kind == entries.KindGeneric && have.body != shown.body {
		content["body"] = have.body
	}
	if s.kind == entries.KindDecision && have.date != shown.date {
		content["date"] = have.date
	}
	if have.private != shown.private {
		// A private mark written or removed by hand; the origin and the
		// conflict are the records writer's to keep.
		t := records.TeamOf(d)
		t.Private = ""
		if have.private {
			t.Private = records.PrivateByHand
		}
		records.SetTeam(d, t)
	}
	file := "memory/" + rel
	related, _ := d["related_files"].([]any)
	kept := related[:0:0]
	for _, f := range related {
		if f != file {
			kept = append(kept, f)
		}
	}
	d["related_files"] = append(kept, file)
	records.AddChange(d, now, summary)
	return d, nil
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return "(none given)"
}
