package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 3, 15, 10, 30, 0, 0, time.UTC)

const storedDecision = `{
 "schema_version": "1.0", "category": "decision", "id": "use-jwt", "title": "Use JWT for auth",
 "created_at": "2026-03-01T00:00:00Z", "updated_at": "2026-03-01T00:00:00Z", "record_status": "active",
 "tags": ["auth", "jwt"], "related_files": ["src/exists.go", "src/gone.go"],
 "changes": [{"date": "2026-03-01T00:00:00Z", "summary": "Created"}], "times_updated": 0,
 "content": {"status": "accepted", "context": "c", "decision": "jwt", "rationale": ["stateless", "simple"]}}`

// fixture is a records root under <tmp>/memory/records with one stored
// decision and a project file src/exists.go.
type fixture struct {
	t    *testing.T
	root string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "memory", "records")
	f := &fixture{t: t, root: root}
	f.file("decisions/use-jwt.json", storedDecision)
	os.MkdirAll(filepath.Join(base, "src"), 0o755)
	os.WriteFile(filepath.Join(base, "src", "exists.go"), nil, 0o644)
	if _, err := RebuildIndex(root, nil); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) file(rel, body string) string {
	p := filepath.Join(f.root, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// stored returns the stored record with edit applied, as an input file.
func (f *fixture) edited(edit func(doc)) string {
	data, _ := os.ReadFile(filepath.Join(f.root, "decisions/use-jwt.json"))
	d, _ := decodeDoc(data)
	edit(d)
	out, _ := json.Marshal(d)
	return f.file(".staging/input.json", string(out))
}

func (f *fixture) write(o flags) (Answer, error) {
	o.Root, o.Now = f.root, testNow
	if o.Target == "" {
		o.Target = "decisions/use-jwt.json"
	}
	return writeFlags(o)
}

// flags are the flags of records write.
type flags struct {
	Action, Target, Category, Input, Hash, Reason string
	Root                                          string
	Now                                           time.Time
	View                                          View
}

// writeFlags is records write: its flags read into a request, then the
// write.
func writeFlags(o flags) (Answer, error) {
	a, ok := ParseAction(o.Action)
	if !ok {
		return nil, fmt.Errorf("invalid --action %q", o.Action)
	}
	t, err := ResolveTarget(o.Root, "", o.Target, a, o.Category)
	if err != nil {
		return nil, err
	}
	var in *Input
	if a.TakesInput() {
		if in, err = ReadInput(o.Input, o.Root); err != nil {
			return nil, err
		}
	}
	return Write(WriteRequest{Action: a, Target: t, Input: in, Hash: o.Hash, Reason: o.Reason, Now: o.Now, View: o.View})
}

func addChange(d doc) {
	d["changes"] = append(d.list("changes"), map[string]any{"date": "2026-03-15", "summary": "edit"})
}

// TestMergeProtections walks the claude-memory plugin's merge-protection table row by row.
func TestMergeProtections(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(doc)
		field string // "" means the update lands
	}{
		{"created_at immutable", func(d doc) { d["created_at"] = "2020-01-01T00:00:00Z"; addChange(d) }, "created_at"},
		{"schema_version immutable", func(d doc) { d["schema_version"] = "2.0"; addChange(d) }, "schema_version"},
		{"category immutable", func(d doc) { d["category"] = "runbook"; addChange(d) }, "category"},
		{"id immutable", func(d doc) { d["id"] = "other-id"; addChange(d) }, "id"},
		{"record_status only via lifecycle", func(d doc) { d["record_status"] = "retired"; addChange(d) }, "record_status"},
		{"tags grow-only below cap", func(d doc) { d["tags"] = []any{"auth"}; addChange(d) }, "tags"},
		{"tags may grow", func(d doc) { d["tags"] = []any{"auth", "jwt", "tokens"}; addChange(d) }, ""},
		{"related_files keep existing", func(d doc) { d["related_files"] = []any{"src/gone.go"}; addChange(d) }, "related_files"},
		{"related_files drop dangling", func(d doc) { d["related_files"] = []any{"src/exists.go"}; addChange(d) }, ""},
		{"changes append-only", func(d doc) { d["changes"] = []any{} }, "changes"},
		{"changes needs a new entry", func(d doc) {}, "changes"},
		{"scalar content change logs itself", func(d doc) { d.content()["decision"] = "paseto" }, ""},
		{"list content may shrink with a change", func(d doc) { d.content()["rationale"] = []any{"simple"}; addChange(d) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			_, err := f.write(flags{Action: "update", Input: f.edited(tt.edit)})
			if tt.field == "" {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != ErrMerge || e.Fields[0][1] != tt.field {
				t.Fatalf("want MERGE_ERROR on %s, got %v", tt.field, err)
			}
		})
	}
}

func TestTagEvictionAtCap(t *testing.T) {
	f := newFixture(t)
	twelve := []any{}
	for _, c := range "abcdefghijkl" {
		twelve = append(twelve, "t"+string(c))
	}
	if _, err := f.write(flags{Action: "update", Input: f.edited(func(d doc) { d["tags"] = twelve[:10]; addChange(d) })}); err == nil {
		t.Fatal("dropping old tags below the cap must fail")
	}
	f = newFixture(t)
	full := append([]any{"auth", "jwt"}, twelve[:10]...)
	if _, err := f.write(flags{Action: "update", Input: f.edited(func(d doc) { d["tags"] = full; addChange(d) })}); err != nil {
		t.Fatal(err)
	}
	// At the cap: evicting one old tag to add a new one is allowed and logged.
	swap := append([]any{"new-tag"}, full[1:]...)
	if _, err := f.write(flags{Action: "update", Input: f.edited(func(d doc) { d["tags"] = swap; addChange(d) })}); err != nil {
		t.Fatal(err)
	}
	// At the cap: dropping without adding is refused.
	if _, err := f.write(flags{Action: "update", Input: f.edited(func(d doc) { d["tags"] = swap[1:]; addChange(d) })}); err == nil {
		t.Fatal("eviction without addition must fail")
	}
	// Over the cap: adding two keeps 12, evicting old tags, logged in changes.
	over := append([]any{"x-one", "x-two"}, swap...)
	if _, err := f.write(flags{Action: "update", Input: f.edited(func(d doc) { d["tags"] = over; addChange(d) })}); err != nil {
		t.Fatal(err)
	}
	r, _ := ReadRecord(filepath.Join(f.root, "decisions/use-jwt.json"))
	if len(r.Tags) != TagCap || !strings.Contains(r.Changes[len(r.Changes)-1].Summary+r.Changes[len(r.Changes)-2].Summary, "evicted") {
		t.Fatalf("tags %v changes %+v", r.Tags, r.Changes)
	}
}

func TestChangesFIFO(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < ChangesCap+5; i++ {
		if _, err := f.write(flags{Action: "update", Input: f.edited(addChange)}); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := ReadRecord(filepath.Join(f.root, "decisions/use-jwt.json"))
	if len(r.Changes) != ChangesCap || r.TimesUpdated != ChangesCap+5 {
		t.Fatalf("changes %d times_updated %d", len(r.Changes), r.TimesUpdated)
	}
}

func TestOCCConflict(t *testing.T) {
	f := newFixture(t)
	_, err := f.write(flags{Action: "update", Input: f.edited(addChange), Hash: "0123456789abcdef0123456789abcdef"})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrOCC {
		t.Fatalf("want OCC_CONFLICT, got %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(f.root, "decisions/use-jwt.json"))
	if _, err := f.write(flags{Action: "update", Input: f.edited(addChange), Hash: Hash(data)}); err != nil {
		t.Fatal(err)
	}
}

func TestAntiResurrection(t *testing.T) {
	f := newFixture(t)
	if _, err := f.write(flags{Action: "retire", Reason: "wrong"}); err != nil {
		t.Fatal(err)
	}
	in := f.file(".staging/new.json", `{"title":"Use JWT","tags":["auth"],"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`)
	_, err := f.write(flags{Action: "create", Category: "decision", Input: in})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrResurrection {
		t.Fatalf("want ANTI_RESURRECTION_ERROR, got %v", err)
	}
	later := testNow.Add(25 * time.Hour)
	if _, err := writeFlags(flags{Action: "create", Category: "decision", Input: in, Root: f.root, Now: later, Target: "decisions/use-jwt.json"}); err != nil {
		t.Fatalf("after 24h: %v", err)
	}
}

func TestRestoreGracePeriod(t *testing.T) {
	f := newFixture(t)
	f.write(flags{Action: "retire"})
	late := testNow.Add(31 * 24 * time.Hour)
	_, err := writeFlags(flags{Action: "restore", Root: f.root, Now: late, Target: "decisions/use-jwt.json"})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrRestore {
		t.Fatalf("want RESTORE_ERROR after the grace period, got %v", err)
	}
	if ans, err := f.write(flags{Action: "restore"}); err != nil || ans.Get("status") != "restored" {
		t.Fatalf("restore: %v %v", ans, err)
	}
}

func TestPathsConfined(t *testing.T) {
	f := newFixture(t)
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(f.root, "runbooks"))
	for _, target := range []string{"../x.json", "/etc/passwd.json", "decisions/../../x.json", "runbooks/evil.json", "misc/x.json", "decisions/x.txt"} {
		_, err := f.write(flags{Action: "retire", Target: target})
		var e *Error
		if !errors.As(err, &e) || e.Kind != ErrPath {
			t.Errorf("%s: want PATH_ERROR, got %v", target, err)
		}
	}
	for _, input := range []string{"/etc/passwd", "/tmp/other.json", filepath.Join(f.root, ".staging", "..", "decisions", "use-jwt.json")} {
		_, err := f.write(flags{Action: "update", Input: input})
		var e *Error
		if !errors.As(err, &e) || (e.Kind != ErrSecurity && e.Kind != ErrInput) {
			t.Errorf("input %s: want SECURITY_ERROR, got %v", input, err)
		}
	}
}

func TestEnforceWindow(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < 7; i++ {
		f.file("sessions/s"+string(rune('a'+i))+".json", `{"schema_version":"1.0","category":"session_summary","id":"s","title":"S",
		"created_at":"2026-03-0`+string(rune('1'+i))+`T00:00:00Z","updated_at":"x","tags":["s"],
		"content":{"goal":"g","outcome":"success","completed":[],"next_actions":["ship item `+string(rune('a'+i))+`"]}}`)
	}
	var warnings []string
	ans, err := Enforce(EnforceOptions{Root: f.root, Category: "session_summary", Now: testNow, Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	retired := ans.Get("retired").([]string)
	if len(retired) != 2 || !strings.HasSuffix(retired[0], "sessions/sa.json") || len(warnings) != 2 {
		t.Fatalf("answer %v warnings %q", ans, warnings)
	}
}

func TestLockTimesOut(t *testing.T) {
	f := newFixture(t)
	held, err := AcquireLock(f.root)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	old := LockTimeout
	LockTimeout = 100 * time.Millisecond
	defer func() { LockTimeout = old }()
	_, err = f.write(flags{Action: "retire"})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrLock {
		t.Fatalf("want LOCK_ERROR, got %v", err)
	}
	r, _ := ReadRecord(filepath.Join(f.root, "decisions/use-jwt.json"))
	if r.Status() != StatusActive {
		t.Fatal("a write proceeded without the lock")
	}
}

func TestInputFromAnyDirectory(t *testing.T) {
	f := newFixture(t)
	f.file(".staging/rel.json", `{"title":"Runbook","tags":["ops"],"content":{"trigger":"t","steps":["s"],"verification":"v"}}`)
	_, err := f.write(flags{Action: "create", Category: "runbook", Target: "runbooks/runbook.json",
		Input: "memory/records/.staging/rel.json"})
	if err != nil {
		t.Fatalf("relative input read from the base: %v", err)
	}
	big := f.file(".staging/big.json", `{"title":"`+strings.Repeat("x", maxInput)+`"}`)
	_, err = f.write(flags{Action: "create", Category: "runbook", Target: "runbooks/big.json", Input: big})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrInput {
		t.Fatalf("oversized input: %v", err)
	}
}

func TestSlugAndTitleChange(t *testing.T) {
	for in, want := range map[string]string{
		"Use JWT":                 "use-jwt",
		"  Café — résumé!! ":      "cafe-resume",
		"UPPER_case and 123":      "upper-case-and-123",
		strings.Repeat("ab ", 60): strings.TrimSuffix(strings.Repeat("ab-", 27), "-"),
	} {
		if got := Slugify(in); got != want || (got != "" && !ValidID(got)) {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
	if r := titleChange("Use Jest for testing", "Use Vitest for testing"); r > 0.5 {
		t.Errorf("minor change ratio %v", r)
	}
	if r := titleChange("Use Jest for testing", "Adopt session tokens"); r <= 0.5 {
		t.Errorf("major change ratio %v", r)
	}
}

func TestUpdateInheritsOmittedFields(t *testing.T) {
	f := newFixture(t)
	in := f.file(".staging/partial.json", `{"content":{"status":"deprecated","context":"c","decision":"jwt","rationale":["stateless"]}}`)
	if _, err := f.write(flags{Action: "update", Input: in}); err != nil {
		t.Fatalf("partial update: %v", err)
	}
	r, _ := ReadRecord(filepath.Join(f.root, "decisions/use-jwt.json"))
	if len(r.Tags) != 2 || len(r.RelatedFiles) != 2 || r.Title != "Use JWT for auth" || len(r.Changes) != 2 {
		t.Fatalf("record %+v", r)
	}
}

// TestIncrementalIndexMatchesRebuild: after creates, updates, renames
// and lifecycle moves, the index kept line by line is byte for byte what
// a rebuild from the files writes.
func TestIncrementalIndexMatchesRebuild(t *testing.T) {
	f := newFixture(t)
	for i, title := range []string{"Zeta rule", "alpha Rule", "Mid -> way #tags:x", "alpha rule"} {
		in := f.file(".staging/c.json", `{"title":`+quote(title)+`,"tags":["T`+string(rune('a'+i))+`","shared"],
		"content":{"kind":"policy","rule":"r","impact":["i"],"severity":"low","active":true}}`)
		if _, err := f.write(flags{Action: "create", Category: "constraint", Input: in,
			Target: "constraints/c-" + string(rune('a'+i)) + ".json"}); err != nil {
			t.Fatal(err)
		}
	}
	steps := []flags{
		{Action: "update", Input: f.edited(func(d doc) { d["title"] = "Entirely different wording here"; addChange(d) })},
		{Action: "retire", Target: "constraints/c-b.json"},
		{Action: "archive", Target: "constraints/c-c.json"},
		{Action: "unarchive", Target: "constraints/c-c.json"},
	}
	for _, o := range steps {
		if _, err := f.write(o); err != nil {
			t.Fatal(err)
		}
	}
	kept, _ := os.ReadFile(filepath.Join(f.root, IndexFile))
	recs, _ := Scan(f.root, true, nil)
	if rebuilt := FormatIndex(Entries(f.root, recs)); string(rebuilt) != string(kept) {
		t.Fatalf("kept index:\n%s\nrebuilt:\n%s", kept, rebuilt)
	}
}

func TestLifecycleHonoursHash(t *testing.T) {
	f := newFixture(t)
	_, err := f.write(flags{Action: "retire", Hash: "ffffffffffffffffffffffffffffffff"})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrOCC {
		t.Fatalf("want OCC_CONFLICT, got %v", err)
	}
}

// TestLocatorRemembersVerdicts: one Locator answers many paths, a
// directory's verdict reused but never another directory's.
func TestLocatorRemembersVerdicts(t *testing.T) {
	f := newFixture(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(f.root, "runbooks")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "x.json"), filepath.Join(f.root, "decisions", "link.json")); err != nil {
		t.Fatal(err)
	}
	loc := NewLocator(f.root, "")
	for _, tt := range []struct{ path, want string }{
		{"decisions/use-jwt.json", "decisions/use-jwt.json"},
		{"runbooks/evil.json", ""},
		{"decisions/other.json", "decisions/other.json"},
		{"decisions/link.json", ""},
		{"runbooks/again.json", ""},
		{"memory/records/decisions/use-jwt.json", "decisions/use-jwt.json"},
	} {
		got, err := loc.Locate(tt.path)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: located at %s, want a refusal", tt.path, got)
			}
			continue
		}
		if want := filepath.Join(f.root, tt.want); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", tt.path, got, err, want)
		}
	}
}

// spoilingView is a view whose Render shows the record in view.md and
// then turns the index into a directory: what a write does after it
// changed its view fails.
type spoilingView struct{ root string }

func (v spoilingView) Sync(*Lock) error { return nil }

func (v spoilingView) Render(*Record, string) (string, error) {
	if err := os.WriteFile(filepath.Join(v.root, "view.md"), []byte("shown\n"), 0o644); err != nil {
		return "", err
	}
	index := filepath.Join(v.root, IndexFile)
	if err := os.Remove(index); err != nil {
		return "", err
	}
	return "memory/view.md", os.Mkdir(index, 0o755)
}

// TestFailedWriteSaysWhatWasDone: a write that fails after it changed its
// view, or stored its record, says so in its error.
func TestFailedWriteSaysWhatWasDone(t *testing.T) {
	f := newFixture(t)
	_, err := f.write(flags{Action: "retire", View: spoilingView{f.root}})
	index := filepath.Join(f.root, IndexFile)
	want := "read index: " + index + ": a directory, not a regular file; refusing to open it" +
		" (memory/records/decisions/use-jwt.json is stored, but the index is not updated: a mark left for it makes the next records write do it)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	data, _ := os.ReadFile(filepath.Join(f.root, "decisions/use-jwt.json"))
	if d, _ := decodeDoc(data); d.status() != StatusRetired {
		t.Fatalf("record: %s", data)
	}
	// The next write fails in the repair the mark asks for, before it
	// changes anything.
	_, err = f.write(flags{Action: "restore"})
	if err == nil || err.Error() != "read index: "+index+": a directory, not a regular file; refusing to open it" {
		t.Fatalf("next write: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(f.root, "decisions/use-jwt.json")); !strings.Contains(string(data), `"record_status": "retired"`) {
		t.Fatalf("record after the refused restore: %s", data)
	}
}
