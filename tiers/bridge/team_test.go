package bridge

import (
	"os"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/records"
)

const sqliteHead = "### [2026-03-01] Use SQLite for C4\n<!-- id: use-sqlite-for-c4 -->\n"

// teamDecisions is the decisions fixture without its malformed entry.
var teamDecisions = func() string {
	cut, rest := strings.Index(decisions, "### [2026-13-45]"), strings.Index(decisions, "### [2026-02-01]")
	return decisions[:cut] + decisions[rest:]
}()

// teamHome is a home whose decisions.md holds teamDecisions, ingested.
func teamHome(t *testing.T) Memory {
	t.Helper()
	h := newHome(t, map[string]string{"reference/decisions.md": teamDecisions})
	mustIngest(t, h)
	return h
}

// update writes the record of category/id again through the view, from
// the team exchange of home from ("" for an ordinary write), edit
// changing its stored document.
func (h Memory) update(t *testing.T, category, id, from string, edit func(map[string]any)) {
	t.Helper()
	target := h.recordPath(category, id)
	data := testutil.ReadFile(t, target)
	d, err := decodeObject([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	edit(d)
	records.AddChange(d, h.Now.Format("2006-01-02T15:04:05Z"), "team test")
	h.write(t, writeOp{Action: "update", Target: target, Hash: records.Hash([]byte(data)), Doc: d, FromTeam: from})
}

func setTeam(team records.Team) func(map[string]any) {
	return func(d map[string]any) { records.SetTeam(d, team) }
}

func readRecord(t *testing.T, path string) *records.Record {
	t.Helper()
	r, err := records.ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func teamOf(r *records.Record) records.Team {
	if r.Team == nil {
		return records.Team{}
	}
	return *r.Team
}

var serverText = &records.Conflict{Home: "server", At: "2026-03-14T12:00:00Z", Title: "Use SQLite for C4",
	Content: map[string]any{"status": "accepted", "context": "c", "decision": "Postgres", "rationale": []any{"r"}},
	Tags:    []string{"decisions"}, RecordStatus: records.StatusActive}

// TestTeamLineRoundTrip: each attribute of a record's team is rendered on
// the line after the entry's id comment, and an ingest of that file
// changes nothing, with or without its caches.
func TestTeamLineRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name string
		from string
		team records.Team
		line string
	}{
		{"from", "laptop", records.Team{Origin: "laptop"}, "<!-- team: from laptop -->"},
		{"private by hand", "", records.Team{Private: records.PrivateByHand}, "<!-- team: private -->"},
		{"private for a secret", "", records.Team{Private: records.SecretMark("github-pat")}, "<!-- team: private (secret: github-pat) -->"},
		{"from with a conflict", "laptop", records.Team{Origin: "laptop", Conflict: serverText}, "<!-- team: from laptop; conflict: zylos-memory team conflicts -->"},
		{"all", "laptop", records.Team{Origin: "laptop", Private: records.PrivateByHand, Conflict: serverText},
			"<!-- team: from laptop; private; conflict: zylos-memory team conflicts -->"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := teamHome(t)
			h.update(t, "decision", "use-sqlite-for-c4", tt.from, setTeam(tt.team))
			src := testutil.ReadFile(t, h.ref("decisions.md"))
			if !strings.Contains(src, sqliteHead+tt.line+"\n- **Decision:** SQLite in WAL mode\n") {
				t.Fatalf("no team line %q:\n%s", tt.line, src)
			}
			rec := testutil.ReadFile(t, h.recordPath("decision", "use-sqlite-for-c4"))
			if got := teamOf(readRecord(t, h.recordPath("decision", "use-sqlite-for-c4"))); !strings.Contains(tt.line, "from") && got.Origin != "" {
				t.Fatalf("team %+v", got)
			}
			for _, caches := range []bool{true, false} {
				if !caches {
					os.Remove(h.pairsPath())
					os.Remove(h.stampPath())
				}
				if rep := mustIngest(t, h); len(rep.Changes) != 0 || len(rep.Problems) != 0 {
					t.Fatalf("ingest (caches %v): %v %v", caches, rep.Changes, rep.Problems)
				}
			}
			if testutil.ReadFile(t, h.ref("decisions.md")) != src || testutil.ReadFile(t, h.recordPath("decision", "use-sqlite-for-c4")) != rec {
				t.Fatal("an ingest changed the file or the record")
			}
			// Taking the team away takes the line out.
			h.update(t, "decision", "use-sqlite-for-c4", "laptop", setTeam(records.Team{}))
			if got := testutil.ReadFile(t, h.ref("decisions.md")); strings.Contains(got, "team:") || withoutIDs(got) != teamDecisions {
				t.Fatalf("after the team was cleared:\n%s", got)
			}
		})
	}
}

// TestTeamLineShownNotRead: from and conflict in the markdown are shown,
// not read: editing or removing the line changes nothing in the record,
// and the ingest writes the record's line again.
func TestTeamLineShownNotRead(t *testing.T) {
	h := teamHome(t)
	h.update(t, "decision", "use-sqlite-for-c4", "laptop", setTeam(records.Team{Origin: "laptop", Conflict: serverText}))
	mustIngest(t, h) // leaves the pairs and the stamp
	path, want := h.ref("decisions.md"), testutil.ReadFile(t, h.ref("decisions.md"))
	line := "<!-- team: from laptop; conflict: zylos-memory team conflicts -->\n"
	rec := testutil.ReadFile(t, h.recordPath("decision", "use-sqlite-for-c4"))
	for _, edited := range []string{"<!-- team: from desk -->\n", "<!--team: from laptop-->\n", ""} {
		testutil.WriteFile(t, path, strings.Replace(want, line, edited, 1))
		rep := mustIngest(t, h)
		if len(rep.Changes) != 1 || rep.Changes[0].Action != "rendered" || !strings.Contains(rep.Changes[0].Detail, "team comment") {
			t.Fatalf("line %q: changes %v", edited, rep.Changes)
		}
		if got := testutil.ReadFile(t, path); got != want {
			t.Fatalf("line %q not put back:\n%s", edited, got)
		}
		if testutil.ReadFile(t, h.recordPath("decision", "use-sqlite-for-c4")) != rec {
			t.Fatalf("line %q changed the record", edited)
		}
	}
}

// TestTeamPrivateByHand: "private" written into the team line (or the
// whole line) by hand marks the record private; taken out, it clears the
// mark, a scanner's too.
func TestTeamPrivateByHand(t *testing.T) {
	h := teamHome(t)
	path := h.ref("decisions.md")
	record := h.recordPath("decision", "use-sqlite-for-c4")
	src := testutil.ReadFile(t, path)
	marked := strings.Replace(src, sqliteHead, sqliteHead+"<!-- team: private -->\n", 1)
	testutil.WriteFile(t, path, marked)
	rep := mustIngest(t, h)
	if len(rep.Changes) != 1 || rep.Changes[0].Action != "updated" {
		t.Fatalf("changes %v", rep.Changes)
	}
	r := readRecord(t, record)
	if teamOf(r).Private != records.PrivateByHand || r.Changes[len(r.Changes)-1].Summary != "marked private (by hand)" {
		t.Fatalf("record %+v, changes %+v", r.Team, r.Changes)
	}
	if testutil.ReadFile(t, path) != marked {
		t.Fatalf("the file changed:\n%s", testutil.ReadFile(t, path))
	}
	// A records write keeps the line; an entry with another's origin
	// gets private into it by hand the same way.
	h.update(t, "decision", "use-sqlite-for-c4", "laptop", setTeam(records.Team{Origin: "laptop", Private: records.PrivateByHand}))
	if got := testutil.ReadFile(t, path); !strings.Contains(got, sqliteHead+"<!-- team: from laptop; private -->\n") {
		t.Fatalf("after the exchange's write:\n%s", got)
	}
	// Taking "private" out clears the mark and keeps the origin.
	testutil.WriteFile(t, path, strings.Replace(testutil.ReadFile(t, path), "from laptop; private", "from laptop", 1))
	mustIngest(t, h)
	if got := teamOf(readRecord(t, record)); got.Private != "" || got.Origin != "laptop" {
		t.Fatalf("team %+v", got)
	}
	// A scanner's mark removed by hand (the whole line) is cleared too;
	// the origin's line comes back.
	h.update(t, "decision", "use-sqlite-for-c4", "", setTeam(records.Team{Private: records.SecretMark("github-pat")}))
	shown := testutil.ReadFile(t, path)
	if !strings.Contains(shown, sqliteHead+"<!-- team: from laptop; private (secret: github-pat) -->\n") {
		t.Fatalf("secret mark not shown:\n%s", shown)
	}
	testutil.WriteFile(t, path, strings.Replace(shown, "<!-- team: from laptop; private (secret: github-pat) -->\n", "", 1))
	mustIngest(t, h)
	if got := teamOf(readRecord(t, record)); got.Private != "" || got.Origin != "laptop" {
		t.Fatalf("team %+v", got)
	}
	if got := testutil.ReadFile(t, path); !strings.Contains(got, sqliteHead+"<!-- team: from laptop -->\n") {
		t.Fatalf("origin's line not back:\n%s", got)
	}
}

// TestTeamPrivateNewEntry: a new entry written with a private team line
// becomes a private record; the line is written as the record shows it,
// after the id comment.
func TestTeamPrivateNewEntry(t *testing.T) {
	h := newHome(t, map[string]string{"reference/preferences.md": "# User Preferences\n\n### Editor\n<!--team:private-->\n- **Value:** vim\n"})
	mustIngest(t, h)
	if got := teamOf(readRecord(t, h.recordPath("preference", "editor"))); got.Private != records.PrivateByHand {
		t.Fatalf("team %+v", got)
	}
	want := "# User Preferences\n\n### Editor\n<!-- id: editor -->\n<!-- team: private -->\n- **Value:** vim\n"
	if got := testutil.ReadFile(t, h.ref("preferences.md")); got != want {
		t.Fatalf("file:\n%s", got)
	}
	if rep := mustIngest(t, h); len(rep.Changes) != 0 {
		t.Fatalf("second ingest: %v", rep.Changes)
	}
}

// TestTeamForgedOriginIgnored: an ordinary write (records write, an
// ingest) cannot give a record an origin or a conflict.
func TestTeamForgedOriginIgnored(t *testing.T) {
	h := teamHome(t)
	h.update(t, "decision", "use-sqlite-for-c4", "", setTeam(records.Team{Origin: "laptop", Conflict: serverText}))
	if r := readRecord(t, h.recordPath("decision", "use-sqlite-for-c4")); r.Team != nil {
		t.Fatalf("team %+v", r.Team)
	}
	path := h.ref("decisions.md")
	testutil.WriteFile(t, path, strings.Replace(testutil.ReadFile(t, path), sqliteHead, sqliteHead+"<!-- team: from laptop -->\n", 1))
	mustIngest(t, h)
	if r := readRecord(t, h.recordPath("decision", "use-sqlite-for-c4")); r.Team != nil {
		t.Fatalf("team %+v", r.Team)
	}
	if got := testutil.ReadFile(t, path); withoutIDs(got) != teamDecisions {
		t.Fatalf("the hand's line stays:\n%s", got)
	}
}

// TestTeamConflictResolvedByHandEdit: an edit of the entry's text while
// its record has a conflict resolves it; the line drops "conflict".
func TestTeamConflictResolvedByHandEdit(t *testing.T) {
	h := teamHome(t)
	h.update(t, "decision", "use-sqlite-for-c4", "laptop", setTeam(records.Team{Origin: "laptop", Conflict: serverText}))
	path := h.ref("decisions.md")
	src := testutil.ReadFile(t, path)
	testutil.WriteFile(t, path, strings.Replace(src, "one writer, many readers", "one writer, many readers, no server", 1))
	rep := mustIngest(t, h)
	if len(rep.Changes) != 1 || rep.Changes[0].Action != "updated" {
		t.Fatalf("changes %v", rep.Changes)
	}
	r := readRecord(t, h.recordPath("decision", "use-sqlite-for-c4"))
	if got := teamOf(r); got.Conflict != nil || got.Origin != "laptop" {
		t.Fatalf("team %+v", got)
	}
	var resolved *records.Change
	for i := range r.Changes {
		if r.Changes[i].Field == "team.conflict" {
			resolved = &r.Changes[i]
		}
	}
	if resolved == nil || resolved.Summary != "conflict with server's text resolved by this edit" || resolved.OldValue == nil {
		t.Fatalf("changes %+v", r.Changes)
	}
	want := strings.Replace(src, "<!-- team: from laptop; conflict: zylos-memory team conflicts -->", "<!-- team: from laptop -->", 1)
	want = strings.Replace(want, "one writer, many readers", "one writer, many readers, no server", 1)
	if got := testutil.ReadFile(t, path); got != want {
		t.Fatalf("file:\n%s", got)
	}
	if rep := mustIngest(t, h); len(rep.Changes) != 0 {
		t.Fatalf("second ingest: %v", rep.Changes)
	}
}

// TestTeamNoteBody: a note's text excludes its team line wherever it is;
// a rewrite of the text keeps the line.
func TestTeamNoteBody(t *testing.T) {
	h := newHome(t, map[string]string{"reference/ideas.md": "# Ideas\n\n### Two\nfirst\n<!-- team: private -->\nsecond\n"})
	mustIngest(t, h)
	record := h.recordPath("note", "two")
	r := readRecord(t, record)
	if r.Content["body"] != "first\nsecond" || teamOf(r).Private != records.PrivateByHand {
		t.Fatalf("record %v %+v", r.Content, r.Team)
	}
	h.update(t, "note", "two", "laptop", func(d map[string]any) {
		d["content"] = map[string]any{"body": "changed"}
		records.SetTeam(d, records.Team{Origin: "laptop", Private: records.PrivateByHand})
	})
	want := "# Ideas\n\n### Two\n<!-- id: two -->\n<!-- team: from laptop; private -->\nchanged\n"
	if got := testutil.ReadFile(t, h.ref("ideas.md")); got != want {
		t.Fatalf("file:\n%q\nwant\n%q", got, want)
	}
	if rep := mustIngest(t, h); len(rep.Changes) != 0 || readRecord(t, record).Content["body"] != "changed" {
		t.Fatalf("second ingest: %v", rep.Changes)
	}
}

// TestTeamLineArchived: the team line travels with its entry into the
// archive, by consolidation and by a records write.
func TestTeamLineArchived(t *testing.T) {
	old := "# Decisions Log\n\n### [2025-01-01] Drop Redis\n- **Decision:** no cache\n- **Status:** superseded\n\n" +
		"### [2025-02-01] Drop Memcached\n- **Decision:** none\n- **Status:** active\n"
	h := newHome(t, map[string]string{"reference/decisions.md": old})
	mustIngest(t, h)
	for _, id := range []string{"drop-redis", "drop-memcached"} {
		h.update(t, "decision", id, "laptop", setTeam(records.Team{Origin: "laptop"}))
	}
	if _, _, err := ApplyConsolidation(h, testNow); err != nil {
		t.Fatal(err)
	}
	h.write(t, writeOp{Action: "archive", Target: h.recordPath("decision", "drop-memcached"), Reason: "gone"})
	arch := testutil.ReadFile(t, h.Layout.ArchiveDir()+"/decisions-2025.md")
	for _, head := range []string{"### [2025-01-01] Drop Redis\n<!-- id: drop-redis -->\n", "### [2025-02-01] Drop Memcached\n<!-- id: drop-memcached -->\n"} {
		if !strings.Contains(arch, head+"<!-- team: from laptop -->\n") {
			t.Fatalf("archive:\n%s", arch)
		}
	}
	for _, id := range []string{"drop-redis", "drop-memcached"} {
		if r := readRecord(t, h.recordPath("decision", id)); r.Status() != records.StatusArchived || teamOf(r).Origin != "laptop" {
			t.Fatalf("%s: %s %+v", id, r.Status(), r.Team)
		}
	}
	if rep := mustIngest(t, h); len(rep.Changes) != 0 || len(rep.Problems) != 0 {
		t.Fatalf("ingest after archiving: %v %v", rep.Changes, rep.Problems)
	}
}

// TestTeamNoteCommentsInsideText: a note whose id comment sits inside its
// text gets its team line after it; both are written again at the top
// of a rewritten text.
func TestTeamNoteCommentsInsideText(t *testing.T) {
	h := newHome(t, map[string]string{"reference/ideas.md": "# Ideas\n\n### One\nfirst\n<!-- id: one -->\nsecond\n"})
	mustIngest(t, h)
	h.update(t, "note", "one", "laptop", setTeam(records.Team{Origin: "laptop"}))
	if got := testutil.ReadFile(t, h.ref("ideas.md")); got != "# Ideas\n\n### One\nfirst\n<!-- id: one -->\n<!-- team: from laptop -->\nsecond\n" {
		t.Fatalf("file:\n%q", got)
	}
	h.update(t, "note", "one", "", func(d map[string]any) { d["content"] = map[string]any{"body": "only"} })
	if got := testutil.ReadFile(t, h.ref("ideas.md")); got != "# Ideas\n\n### One\n<!-- id: one -->\n<!-- team: from laptop -->\nonly\n" {
		t.Fatalf("file:\n%q", got)
	}
}

// TestTeamNoteTextReadingAsTeamLine: a record whose note text has a line
// of its own that would read as a team comment cannot be shown; the
// write is refused and changes nothing.
func TestTeamNoteTextReadingAsTeamLine(t *testing.T) {
	h := newHome(t, map[string]string{"reference/ideas.md": "# Ideas\n"})
	_, err := h.writeWith(h.View(), writeOp{Action: "create", Category: "note", Target: h.recordPath("note", "sneaky"),
		Doc: map[string]any{"title": "Sneaky", "tags": []any{"ideas"}, "content": map[string]any{"body": "<!-- team: private -->\ntext"}}})
	if err == nil || !strings.Contains(err.Error(), "would not read back as its record") {
		t.Fatalf("err = %v", err)
	}
	if got := testutil.ReadFile(t, h.ref("ideas.md")); got != "# Ideas\n" {
		t.Fatalf("file:\n%s", got)
	}
	if _, err := os.Stat(h.recordPath("note", "sneaky")); err == nil {
		t.Fatal("the record was stored")
	}
}
