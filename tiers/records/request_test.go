package records

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWriteTellsWarningsAsValues: what a write corrects in its input
// comes back as AutoFix values, rendered as the plugin prints them only by
// String; other notes are Notes.
func TestWriteTellsWarningsAsValues(t *testing.T) {
	f := newFixture(t)
	in, err := ReadInput(f.file(".staging/new.json", `{"title":"Use  tabs","id":"Use Tabs","tags":"style",
		"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`), f.root)
	if err != nil {
		t.Fatal(err)
	}
	target, err := ResolveTarget(f.root, "", "decisions/use-tabs.json", ActionCreate, "decision")
	if err != nil {
		t.Fatal(err)
	}
	var got []Warning
	tell := func(w Warning) { got = append(got, w) }
	if _, err := Write(WriteRequest{Action: ActionCreate, Target: target, Input: in, Now: testNow, Warn: tell}); err != nil {
		t.Fatal(err)
	}
	want := []Warning{
		{AutoFix, "schema_version", "set to 1.0"},
		{AutoFix, "updated_at", "set to now"},
		{AutoFix, "created_at", "set to now"},
		{AutoFix, "id", "slugified to use-tabs"},
		{AutoFix, "title", "stripped of whitespace, control characters and index markers"},
		{AutoFix, "tags", "wrapped string in an array"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("warnings\n%#v\nwant\n%#v", got, want)
	}
	if s := got[0].String(); s != "[AUTO-FIX] schema_version: set to 1.0" {
		t.Fatalf("printed as %q", s)
	}

	got = nil
	data, _ := os.ReadFile(filepath.Join(f.root, "decisions/use-jwt.json"))
	d, _ := decodeDoc(data)
	addChange(d)
	old, _ := ResolveTarget(f.root, "", "decisions/use-jwt.json", ActionUpdate, "")
	if _, err := Write(WriteRequest{Action: ActionUpdate, Target: old, Input: InputOf(d), Now: testNow, Warn: tell}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != (Warning{Kind: Note, Text: "WARNING: --hash not provided for update. OCC protection disabled."}) {
		t.Fatalf("update without a hash: %#v", got)
	}
}

// TestParseAction accepts the plugin's actions, delete among them, and
// nothing else.
func TestParseAction(t *testing.T) {
	for _, s := range Actions {
		if a, ok := ParseAction(s); !ok || string(a) != s {
			t.Errorf("ParseAction(%q) = %q, %v", s, a, ok)
		}
	}
	for _, s := range []string{"", "Create", "purge", "create "} {
		if _, ok := ParseAction(s); ok {
			t.Errorf("ParseAction(%q) accepted", s)
		}
	}
}

// TestBatchWritesUnderTheHeldLock: a batch started on the held lock
// creates, updates (keeping the id through a retitle) and moves records,
// and the index follows at Finish.
func TestBatchWritesUnderTheHeldLock(t *testing.T) {
	f := newFixture(t)
	held, err := AcquireWriteLock(f.root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	var fixes []Warning
	b, err := StartBatch(held, testNow, func(w Warning) { fixes = append(fixes, w) })
	if err != nil {
		t.Fatal(err)
	}
	created := filepath.Join(f.root, "decisions", "use-tabs.json")
	if err := b.Create(created, "decision", map[string]any{"title": "Use tabs", "tags": []any{"style"},
		"content": map[string]any{"status": "accepted", "context": "c", "decision": "d", "rationale": []any{"r"}}}); err != nil {
		t.Fatal(err)
	}
	jwt := filepath.Join(f.root, "decisions", "use-jwt.json")
	data, _ := os.ReadFile(jwt)
	d, _ := decodeDoc(data)
	d["title"] = "Entirely different wording here"
	addChange(d)
	if err := b.Update(jwt, d, Hash(data)); err != nil {
		t.Fatal(err)
	}
	if err := b.Move(created, ActionArchive, "done"); err != nil {
		t.Fatal(err)
	}
	if err := b.Move(created, ActionCreate, ""); err == nil {
		t.Fatal("a create taken as a status move")
	}
	var rerr *Error
	if err := b.Update(jwt, d, "0123456789abcdef0123456789abcdef"); !errors.As(err, &rerr) || rerr.Kind != ErrOCC {
		t.Fatalf("stale hash: %v", err)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if len(fixes) == 0 || fixes[0].Kind != AutoFix {
		t.Fatalf("warnings: %#v", fixes)
	}
	if _, err := os.Stat(jwt); err != nil {
		t.Fatalf("the update did not keep the id: %v", err)
	}
	kept, _ := os.ReadFile(filepath.Join(f.root, IndexFile))
	recs, _ := Scan(f.root, true, nil)
	if rebuilt := FormatIndex(Entries(f.root, recs)); string(rebuilt) != string(kept) {
		t.Fatalf("index:\n%s\nrebuilt:\n%s", kept, rebuilt)
	}
	if r, _ := ReadRecord(created); r.Status() != StatusArchived {
		t.Fatalf("moved record: %s", r.Status())
	}
}
