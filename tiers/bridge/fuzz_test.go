package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// recordOf is the record ingest would make of e, as readers see it.
func recordOf(t *testing.T, e entry, id string) *records.Record {
	d := e.spec.newDoc(e.Entry, id, e.spec.file, "2026-03-15T10:30:00Z")
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	r, err := records.ParseRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// FuzzSplice holds the bridge's promise over any file: giving every
// well-formed entry its record's id changes nothing else, a second
// rendering changes no byte, and a splice that cannot prove itself
// refuses rather than writes.
func FuzzSplice(f *testing.F) {
	f.Add([]byte(decisions), uint8(0))
	f.Add([]byte("# P\n\n## Active\n### A\n- **Status:** active\n- **Updated:** 2026-01-01\n\n## Completed\n### B\n- **Updated:** 2026-01-02\n"), uint8(1))
	f.Add([]byte("### Tabs\r\n- **Value:** x\r\n<!-- id: tabs -->\r\n### Tabs\n- **Value:** y"), uint8(2))
	f.Add([]byte("# Ideas\n\n### One\n\ntext\n<!-- id: one -->\nmore\n\n### Two\r\n- item\r\n"), uint8(3))
	f.Add([]byte("### [2026-01-01] T #\n<!-- id: t -->\n<!-- id: t -->\n- **Decision:** a\n- **Status:** active"), uint8(0))
	f.Add([]byte("### [2026-01-01] T\n<!-- id: t -->\n<!-- team: from laptop; private -->\n- **Decision:** a\n- **Status:** active\n### [2026-01-02] U\n<!--team:private-->\n- **Decision:** b\n- **Status:** active"), uint8(0))
	f.Add([]byte("# Ideas\n\n### One\n\ntext\n<!-- team: private (secret: x) -->\nmore\n<!-- id: one -->\nlast\n\n### Two\n<!-- team: conflict -->"), uint8(3))
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		file := specs[int(which)%len(specs)].file
		ents := parseEntries(file, src, false)
		sp := newSplice(file, src)
		used := map[string]bool{}
		for i, e := range ents {
			if e.problem != "" || used[e.id] {
				continue
			}
			id := e.id
			if id == "" {
				id = "entry-" + strings.Repeat("x", i%3) + string(rune('a'+i%26))
				if used[id] {
					continue
				}
			}
			used[id] = true
			r := recordOf(t, e, id)
			if !e.spec.same(e.Entry, r) {
				t.Fatalf("entry %q does not match the record made from it", e.Title)
			}
			sp.render(e, r)
		}
		// The in-place proof of one entry's rendering never passes what
		// the proof over the whole file refuses.
		for i, e := range ents {
			if e.problem != "" || e.id == "" || used[e.id] && i > 0 && ents[i-1].id == e.id {
				continue
			}
			one := newSplice(file, src)
			one.parsed = ents
			r := recordOf(t, e, e.id)
			r.Title += " retitled #"
			r.Content = map[string]any{}
			one.render(e, r)
			sortEdits(one.edits)
			out := applyEdits(src, one.edits)
			if one.provenInPlace(out) {
				if err := one.proveAll(out); err != nil {
					t.Fatalf("proven in place, refused whole: %v\n%q", err, out)
				}
			}
		}
		out, err := sp.result()
		if err != nil {
			return // refused: nothing would be written
		}
		// Every byte of src is in out, in order: only lines were added,
		// but for the team comments of the rendered entries, which show
		// their records' teams (a record made of an entry takes only its
		// private mark).
		var kept []byte
		prev := 0
		for _, e := range ents {
			if e.hasTeamLine() && sp.touched[e.start] {
				kept = append(kept, src[prev:e.teamLine[0]]...)
				prev = e.teamLine[1]
			}
		}
		kept = append(kept, src[prev:]...)
		j := 0
		for i := 0; i < len(out) && j < len(kept); i++ {
			if out[i] == kept[j] {
				j++
			}
		}
		if j != len(kept) {
			t.Fatalf("bytes of the file were lost:\n%q\n%q", src, out)
		}
		again := newSplice(file, out)
		for _, e := range parseEntries(file, out, false) {
			if e.problem == "" && e.id != "" && used[e.id] {
				again.render(e, recordOf(t, e, e.id))
			}
		}
		out2, err := again.result()
		if err != nil {
			t.Fatalf("second rendering refused: %v", err)
		}
		if string(out2) != string(out) {
			t.Fatalf("second rendering changed bytes:\n%q\n%q", out, out2)
		}
	})
}

// FuzzRecordRoundTrip: whatever a record's fields hold, its rendered entry
// parses back into a projection equal to the record's: ingest of a
// rendered record changes nothing.
func FuzzRecordRoundTrip(f *testing.F) {
	f.Add("Use SQLite", "a\nb", "ends #", uint8(0))
	f.Add("C#", "**x**", "`y`", uint8(1))
	f.Add("日本語", " ", "- list", uint8(2))
	f.Add("Idea", "some text\n\n  indented", "```\n### fenced\n```", uint8(3))
	f.Add("Shared", "laptop", "github-pat", uint8(4+1))
	f.Add("Conflicted", "a;b -->", "", uint8(8+3))
	f.Add("Private", "x", "y", uint8(12+2))
	f.Fuzz(func(t *testing.T, title, a, b string, which uint8) {
		s := &specs[int(which)%len(specs)]
		title = records.SanitizeTitle(title)
		if title == "" || strings.ContainsAny(title+a+b, "\x00") {
			return
		}
		content := map[string]any{}
		for i, fl := range s.fields {
			content[fl.key] = []string{a, b, a}[i]
		}
		content["status"] = map[string]string{"decision": "accepted", "project": "active", "preference": ""}[s.category]
		if s.kind == entries.KindGeneric {
			content = map[string]any{"body": a + "\n" + b}
		}
		r := &records.Record{ID: "x", Title: title, Category: s.category, CreatedAt: "2026-03-15T10:30:00Z", Content: content}
		// which's upper bits pick a team: from a, private by hand or for
		// a secret of rule b, with a conflict.
		switch which / uint8(len(specs)) % 4 {
		case 1:
			r.Team = &records.Team{Origin: a}
		case 2:
			r.Team = &records.Team{Origin: a, Private: records.SecretMark(b), Conflict: &records.Conflict{Home: b}}
		case 3:
			r.Team = &records.Team{Private: records.PrivateByHand, Conflict: &records.Conflict{}}
		}
		es := parseEntries(s.file, []byte(s.block(r, "\n")), false)
		if len(es) != 1 {
			return // a value that starts a new block (a heading) is not a field
		}
		if _, end := es[0].Span(); end != len(s.block(r, "\n")) {
			return // a note's text that ends the entry (a heading) is refused by the splice proof
		}
		if s.kind == entries.KindGeneric && teamLineOf(es[0].Text) != s.recordProjection(r).team {
			return // so is one with a line of its own that reads as a team comment
		}
		if es[0].problem == "" && !s.same(es[0].Entry, r) {
			t.Fatalf("rendered entry reads back differently:\n%s\n%+v\n%+v", s.block(r, "\n"), s.entryProjection(es[0].Entry), s.shown(r))
		}
		if es[0].problem == "" && s.entryProjection(es[0].Entry).team != s.recordProjection(r).team {
			t.Fatalf("rendered entry shows another team:\n%s\n%+v", s.block(r, "\n"), r.Team)
		}
	})
}
