package team

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/zylos/zylos-memory/internal/gitobj"
	"github.com/zylos/zylos-memory/tiers/records"
)

// markerScanner finds a credential in any text holding marker.
func markerScanner(marker string) Scanner {
	return func(_ context.Context, texts map[string]string) (map[string]string, error) {
		found := map[string]string{}
		for key, text := range texts {
			if strings.Contains(text, marker) {
				found[key] = "test-rule"
			}
		}
		return found, nil
	}
}

// syncWith syncs th with scan, failing on an error or a problem.
func (th *testHome) syncWith(scan Scanner) *Report {
	th.t.Helper()
	th.now = th.now.Add(60e9)
	rep, err := Sync(context.Background(), th.h, scan)
	if err != nil || rep.Problem != nil {
		th.t.Fatalf("%s: sync: %v %v", th.name, err, rep.Problem)
	}
	return rep
}

// remoteHolds reports whether any object of the bare repository holds s.
func remoteHolds(t *testing.T, bare, s string) bool {
	t.Helper()
	out, err := exec.Command("git", "--git-dir="+bare, "cat-file", "--batch-all-objects", "--batch").Output()
	if err != nil {
		t.Fatalf("cat-file: %v", err)
	}
	return strings.Contains(string(out), s)
}

// This home's text, holding a credential, loses a conflict to a member's:
// it is kept beside the entry, and must not be published with it.
func TestReviewSecretInConflictTextStaysLocal(t *testing.T) {
	const secret = "SECRET-MARKER-41"
	remote := bareRemote(t)
	a, m := newTestHome(t, "a", remote), newTestHome(t, "m", remote)
	scan := markerScanner(secret)
	a.save(records.ActionCreate, "db", "Database", "sqlite")
	a.syncWith(scan)
	m.syncWith(scan)
	m.save(records.ActionUpdate, "db", "Database", "postgres")
	m.syncWith(scan)
	// a's edit holds a credential; before a publishes it, a sync meets
	// m's edit: a conflict m's text wins (equal revisions, m > a).
	a.save(records.ActionUpdate, "db", "Database", "mysql, password "+secret)
	a.syncWith(scan)
	if l := a.local()["decision/db"]; l.conflict == nil {
		t.Fatalf("no conflict: %+v", l.entry.Content)
	}
	if remoteHolds(t, remote, secret) {
		t.Error("the credential of a text kept in a conflict reached the remote")
	}
}

// A retire's reason is published with the entry, so it is scanned too.
func TestReviewSecretInRetireReasonStaysLocal(t *testing.T) {
	const secret = "SECRET-MARKER-42"
	remote := bareRemote(t)
	a := newTestHome(t, "a", remote)
	scan := markerScanner(secret)
	a.save(records.ActionCreate, "db", "Database", "sqlite")
	a.syncWith(scan)
	root := a.h.Layout.RecordsDir()
	target, err := records.ResolveTarget(root, "", root+"/decisions/db.json", records.ActionRetire, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.h.Save(context.Background(), a.h.Command("test"), records.WriteRequest{Action: records.ActionRetire, Target: target, Reason: "rotated " + secret}); err != nil {
		t.Fatal(err)
	}
	a.syncWith(scan)
	if remoteHolds(t, remote, secret) {
		t.Error("the credential in a retire reason reached the remote")
	}
}

// memberRemote publishes crafted commits on a member's ref of a remote,
// as a home of another version (or a hand) might.
type memberRemote struct {
	t    *testing.T
	repo *repo
	name string
	last plumbing.Hash
}

func newMemberRemote(t *testing.T, remote, name string) *memberRemote {
	r, err := openRepo(context.Background(), remote, []string{"PATH=" + os.Getenv("PATH")})
	if err != nil {
		t.Fatal(err)
	}
	return &memberRemote{t: t, repo: r, name: name}
}

// publish puts files (with its home.json) on the member's ref.
func (m *memberRemote) publish(files map[string][]byte) {
	m.t.Helper()
	all := map[string][]byte{homeFile: []byte(`{"name": "` + m.name + `", "home_id": "id-` + m.name + `", "format": 1}`)}
	for k, v := range files {
		all[k] = v
	}
	tree, err := m.repo.tree(all)
	if err != nil {
		m.t.Fatal(err)
	}
	c, err := m.repo.commit(tree, m.last, "m", time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	if err != nil {
		m.t.Fatal(err)
	}
	if err := m.repo.setRef(context.Background(), teamRefs+m.name, c, m.last); err != nil {
		m.t.Fatal(err)
	}
	m.last = c
}

// decisionEntry is a member's decision entry as JSON.
func decisionEntry(t *testing.T, id, title string, content map[string]any, rev int, history ...string) []byte {
	e := Entry{ID: id, Category: "decision", Title: title, Tags: []string{"t"}, Content: content,
		Status: records.StatusActive, Origin: "m", Rev: rev, History: history}
	e.History = append(e.History, lineOf(&e, e.Conflict))
	data, err := json.Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// An entry this home could not take once (here: its record refused by
// the schema, as a home of another version or a hand may write it) is
// taken when the member publishes it again, fixed: a step that failed is
// not a deletion here.
func TestReviewEntryRefusedOnceArrivesFixed(t *testing.T) {
	remote := bareRemote(t)
	a := newTestHome(t, "a", remote)
	m := newMemberRemote(t, remote, "m")
	broken := map[string]any{"status": "accepted", "context": "c", "decision": "d"} // no rationale
	m.publish(map[string][]byte{"records/decisions/cache.json": decisionEntry(t, "cache", "Cache", broken, 1)})
	a.syncWith(nothingFound)
	if a.local()["decision/cache"] != nil {
		t.Fatal("a record the schema refuses was created")
	}
	fixed := map[string]any{"status": "accepted", "context": "c", "decision": "d", "rationale": []any{"r"}}
	m.publish(map[string][]byte{"records/decisions/cache.json": decisionEntry(t, "cache", "Cache", fixed, 2)})
	a.syncWith(nothingFound)
	if a.local()["decision/cache"] == nil {
		t.Error("the member's entry, fixed, never arrives: the refused step counted as applied, and its absence as a deletion here")
	}
}

// tag adds a tag to the record id of th: a records write that changes
// neither its title nor its content.
func (th *testHome) tag(id, tag string) {
	th.t.Helper()
	l := th.local()["decision/"+id]
	d := clone(l.doc)
	d["tags"] = append(d["tags"].([]any), tag)
	records.AddChange(d, th.now.Format(time.RFC3339), "tagged")
	root := th.h.Layout.RecordsDir()
	target, err := records.ResolveTarget(root, "", l.abs, records.ActionUpdate, "")
	if err != nil {
		th.t.Fatal(err)
	}
	req := records.WriteRequest{Action: records.ActionUpdate, Target: target, Input: records.InputOf(d), Hash: l.hash, KeepID: true}
	if _, err := th.h.Save(context.Background(), th.h.Command("test"), req); err != nil {
		th.t.Fatal(err)
	}
}

// A records write that lands between a sync's read of the records and
// its apply of a member's change to the same record makes that apply
// fail (the record's hash changed): the member's change must still
// arrive at a later sync, not be dropped for good.
func TestReviewWriteDuringApplyDoesNotDropMemberChange(t *testing.T) {
	ctx := context.Background()
	remote := bareRemote(t)
	a, b := newTestHome(t, "a", remote), newTestHome(t, "b", remote)
	a.save(records.ActionCreate, "x", "X", "v0")
	a.sync()
	b.sync()
	b.save(records.ActionUpdate, "x", "X", "v1 from b")
	b.sync()

	// a's sync, step by step as Sync runs it, with the agent's write
	// landing between the read and the apply.
	cfg, err := ReadConfig(a.h.Layout)
	if err != nil {
		t.Fatal(err)
	}
	r, err := openRepo(ctx, repoPath(a.h.Layout), a.h.Environ)
	if err != nil {
		t.Fatal(err)
	}
	s := &syncer{h: a.h, cfg: cfg, repo: r, st: ReadState(a.h.Layout), scan: nothingFound, now: a.now, rep: &Report{Applied: map[string]int{}}}
	s.st.Book = readBook(a.h.Layout)
	fetched, err := s.fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.readLocal(); err != nil {
		t.Fatal(err)
	}
	a.tag("x", "late")
	if err := s.applyMember(ctx, "b", fetched["b"]); err != nil {
		t.Fatal(err)
	}
	if len(s.rep.Skipped) == 0 {
		t.Fatal("the apply did not meet the write")
	}
	if err := writeJSON(bookPath(a.h.Layout), s.st.Book); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(statePath(a.h.Layout), s.st); err != nil {
		t.Fatal(err)
	}

	for round := 0; round < 3; round++ {
		a.sync()
		b.sync()
	}
	if got, want := a.texts("x"), b.texts("x"); !slices.Equal(got, want) || !slices.Contains(got, "v1 from b") {
		t.Errorf("the homes never converge: a shows %q, b shows %q", got, want)
	}
}

// An entry kept back because the scanner failed is published by the
// next sync that can scan it, though nothing else changed meanwhile.
func TestReviewEntryKeptBackByFailedScanIsPublishedLater(t *testing.T) {
	remote := bareRemote(t)
	a := newTestHome(t, "a", remote)
	a.save(records.ActionCreate, "db", "Database", "sqlite")
	a.syncWith(nothingFound)
	a.save(records.ActionUpdate, "db", "Database", "postgres since today")
	failing := func(context.Context, map[string]string) (map[string]string, error) {
		return nil, errors.New("scanner killed")
	}
	a.now = a.now.Add(time.Minute)
	rep, err := Sync(context.Background(), a.h, failing)
	if err != nil || rep.Problem == nil {
		t.Fatalf("a failing scanner: %v %v", err, rep.Problem)
	}
	if remoteHolds(t, remote, "postgres since today") {
		t.Fatal("published unscanned")
	}
	a.syncWith(nothingFound)
	a.syncWith(nothingFound)
	if !remoteHolds(t, remote, "postgres since today") {
		t.Error("the entry kept back while the scanner failed is never published: the next syncs find nothing new")
	}
}

// texts lists what th's entry id says and what it keeps beside it.
func (th *testHome) texts(id string) []string {
	th.t.Helper()
	l := th.local()["decision/"+id]
	if l == nil {
		return nil
	}
	out := []string{l.entry.Content["decision"].(string)}
	if l.conflict != nil {
		out = append(out, l.conflict.Content["decision"].(string))
	}
	return out
}

// Three homes change one entry at once: every home ends showing the same
// entry, and every text stays in each home's record, as the entry, kept
// beside it, or (the texts beyond the one kept) in its change log.
func TestReviewThreeWayConflictKeepsEveryText(t *testing.T) {
	remote := bareRemote(t)
	a, b, c := newTestHome(t, "a", remote), newTestHome(t, "b", remote), newTestHome(t, "c", remote)
	a.save(records.ActionCreate, "x", "X", "v0")
	for _, th := range []*testHome{a, b, c} {
		th.sync()
	}
	for _, th := range []*testHome{a, b, c} {
		th.save(records.ActionUpdate, "x", "X", "from "+th.name)
	}
	for round := 0; round < 4; round++ {
		for _, th := range []*testHome{a, b, c} {
			th.sync()
		}
	}
	entry := a.texts("x")[0]
	for _, th := range []*testHome{a, b, c} {
		if got := th.texts("x"); got[0] != entry || len(got) != 2 {
			t.Errorf("%s shows %q, a shows %q", th.name, got, a.texts("x"))
		}
		raw, err := os.ReadFile(th.local()["decision/x"].abs)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"from a", "from b", "from c"} {
			if !strings.Contains(string(raw), text) {
				t.Errorf("%s's record lost %q:\n%s", th.name, text, raw)
			}
		}
	}
}

// A conflict resolved by an edit of the entry's tags alone (an edit that
// resolves, as team.md says) stays resolved in both homes.
func TestReviewTagEditResolutionTravels(t *testing.T) {
	remote := bareRemote(t)
	a, b := newTestHome(t, "a", remote), newTestHome(t, "b", remote)
	a.save(records.ActionCreate, "x", "X", "v0")
	a.sync()
	b.sync()
	a.save(records.ActionUpdate, "x", "X", "from a")
	b.save(records.ActionUpdate, "x", "X", "from b")
	for round := 0; round < 2; round++ {
		a.sync()
		b.sync()
	}
	if a.local()["decision/x"].conflict == nil {
		t.Fatal("no conflict")
	}
	a.tag("x", "resolved") // the shown text is the one to keep
	if a.local()["decision/x"].conflict != nil {
		t.Fatal("a tag edit did not resolve the conflict")
	}
	for round := 0; round < 2; round++ {
		a.sync()
		b.sync()
	}
	for _, th := range []*testHome{a, b} {
		if th.local()["decision/x"].conflict != nil {
			t.Errorf("%s: the conflict came back or stayed: %q", th.name, th.texts("x"))
		}
	}
}

// A damaged state (a member that is null) is rebuilt, not a panic of the
// sync (which would stop the memory service) or of team status.
func TestReviewDamagedStateDoesNotPanic(t *testing.T) {
	remote := bareRemote(t)
	a, b := newTestHome(t, "a", remote), newTestHome(t, "b", remote)
	b.save(records.ActionCreate, "x", "X", "v0")
	b.sync()
	a.sync()
	if err := os.WriteFile(statePath(a.h.Layout), []byte(`{"members": {"b": null, "gone": null}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("panic: %v", r)
		}
	}()
	if _, err := ReadStatus(a.h.Layout); err != nil {
		t.Error(err)
	}
	a.sync()
}

// A home that leaves its team can join it again under its own name: its
// old ref on the remote is its own.
func TestReviewRejoinUnderOwnName(t *testing.T) {
	remote := bareRemote(t)
	a := newTestHome(t, "a", remote)
	a.save(records.ActionCreate, "x", "X", "v0")
	a.sync()
	if _, err := Leave(a.h.Layout); err != nil {
		t.Fatal(err)
	}
	if _, err := Join(context.Background(), a.h, remote, "a"); err != nil {
		t.Errorf("join again as a: %v", err)
	}
}

// A local record this home cannot read as a team entry (here: a note
// over the entry limit) is still there: a member's entry of the same id
// must not be created over it.
func TestReviewUnreadableLocalRecordIsNotOverwritten(t *testing.T) {
	ctx := context.Background()
	remote := bareRemote(t)
	a := newTestHome(t, "a", remote)
	root := a.h.Layout.RecordsDir()
	abs := root + "/notes/runbook-notes.json"
	body := strings.Repeat("a long note of this home. ", 12000) // ~300 KB
	d := records.NewDocument("note", "runbook-notes", "Runbook notes", a.now.Format(time.RFC3339))
	d["tags"], d["content"] = []any{"t"}, map[string]any{"body": body}
	for _, step := range []records.WriteRequest{
		{Action: records.ActionCreate, Input: records.InputOf(d), KeepID: true},
		{Action: records.ActionRetire, Reason: "done with it"},
	} {
		cat := ""
		if step.Action == records.ActionCreate {
			cat = "note"
		}
		target, err := records.ResolveTarget(root, "", abs, step.Action, cat)
		if err != nil {
			t.Fatal(err)
		}
		step.Target = target
		if _, err := a.h.Save(ctx, a.h.Command("test"), step); err != nil {
			t.Fatal(err)
		}
	}
	a.now = a.now.Add(25 * time.Hour)
	m := newMemberRemote(t, remote, "m")
	e := Entry{ID: "runbook-notes", Category: "note", Title: "Runbook notes", Tags: []string{"t"},
		Content: map[string]any{"body": "m's short note"}, Status: records.StatusActive, Origin: "m", Rev: 1}
	e.History = []string{lineOf(&e, e.Conflict)}
	data, _ := json.Marshal(&e)
	m.publish(map[string][]byte{e.path(): data})
	a.syncWith(nothingFound)
	got, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "a long note of this home.") {
		t.Errorf("this home's record was replaced by the member's:\n%.300s", got)
	}
}

// publishShared puts on the member's ref a tree of n entries that all
// hold one blob of size bytes: a push of a few hundred KB.
func (m *memberRemote) publishShared(n, size int) {
	m.t.Helper()
	blob, err := gitobj.Blob(m.repo.st, bytes.Repeat([]byte("x"), size))
	if err != nil {
		m.t.Fatal(err)
	}
	store := func(t *object.Tree) plumbing.Hash {
		h, err := gitobj.Tree(m.repo.st, t.Entries)
		if err != nil {
			m.t.Fatal(err)
		}
		return h
	}
	var decisions object.Tree
	for i := 0; i < n; i++ {
		decisions.Entries = append(decisions.Entries, object.TreeEntry{Name: fmt.Sprintf("e%06d.json", i), Mode: filemode.Regular, Hash: blob})
	}
	home, err := gitobj.Blob(m.repo.st, []byte(`{"name": "`+m.name+`", "home_id": "x", "format": 1}`))
	if err != nil {
		m.t.Fatal(err)
	}
	recs := store(&object.Tree{Entries: []object.TreeEntry{{Name: "decisions", Mode: filemode.Dir, Hash: store(&decisions)}}})
	top := store(&object.Tree{Entries: []object.TreeEntry{{Name: "home.json", Mode: filemode.Regular, Hash: home}, {Name: "records", Mode: filemode.Dir, Hash: recs}}})
	c, err := m.repo.commit(top, m.last, "m", time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	if err != nil {
		m.t.Fatal(err)
	}
	if err := m.repo.setRef(context.Background(), teamRefs+m.name, c, m.last); err != nil {
		m.t.Fatal(err)
	}
	m.last = c
}

// A member's tree of many entries sharing one large blob (a push of a
// few hundred KB) is not read whole into memory: 1,500 entries of 250 KB
// would be 375 MB, and 40,000 of them more than the machine has.
func TestReviewHugeMemberTreeIsBounded(t *testing.T) {
	remote := bareRemote(t)
	a := newTestHome(t, "a", remote)
	newMemberRemote(t, remote, "m").publishShared(1500, 250<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a.now = a.now.Add(time.Minute)
	if _, err := Sync(context.Background(), a.h, nothingFound); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 128<<20 {
		t.Errorf("a sync allocated %d MB to read a member's tree of shared blobs", got>>20)
	}
}

// A member's tree of many malformed entries is named in the state
// without growing it without bound: every session start reads that
// state (SessionStart's team line), and the dashboard lists it.
func TestReviewSkippedListIsBounded(t *testing.T) {
	remote := bareRemote(t)
	a := newTestHome(t, "a", remote)
	newMemberRemote(t, remote, "m").publishShared(20000, 10)
	a.now = a.now.Add(time.Minute)
	if _, err := Sync(context.Background(), a.h, nothingFound); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(statePath(a.h.Layout))
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > 256<<10 {
		t.Errorf("state.json is %d KB after one member's malformed tree", info.Size()>>10)
	}
}

// Two homes change one entry at once, and one changes it again before
// its next sync (an agent edits an entry twice in a minute): the other
// home's text, kept beside the entry there, must survive somewhere.
func TestReviewEditAgainBeforeSyncKeepsOtherText(t *testing.T) {
	remote := bareRemote(t)
	a, b := newTestHome(t, "a", remote), newTestHome(t, "b", remote)
	a.save(records.ActionCreate, "x", "X", "v0")
	a.sync()
	b.sync()
	b.save(records.ActionUpdate, "x", "X", "b1")
	b.sync()
	a.save(records.ActionUpdate, "x", "X", "a1")
	b.save(records.ActionUpdate, "x", "X", "b2")
	a.sync() // a conflict; b1 is the entry, a1 kept beside it
	if got := a.texts("x"); !slices.Equal(got, []string{"b1", "a1"}) {
		t.Fatalf("a shows %q", got)
	}
	for round := 0; round < 3; round++ {
		b.sync()
		a.sync()
	}
	if !slices.Contains(a.texts("x"), "a1") && !slices.Contains(b.texts("x"), "a1") {
		t.Errorf("a's text is gone from the team: a shows %q, b %q; neither home ever showed it to b", a.texts("x"), b.texts("x"))
	}
}

// A remote that accepts the connection and never answers ends the
// sync with a problem in bounded time: it would hold the sync lock, and
// every later sync of the service, for good.
func TestReviewSilentRemoteIsBounded(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close() // never accepted: the connection waits for an answer
	a := newTestHome(t, "a", bareRemote(t))
	cfg, err := ReadConfig(a.h.Layout)
	if err != nil {
		t.Fatal(err)
	}
	cfg.URL = "git://" + l.Addr().String() + "/team.git"
	if err := writeJSON(configPath(a.h.Layout), cfg); err != nil {
		t.Fatal(err)
	}
	defer func(was time.Duration) { remoteWait = was }(remoteWait)
	remoteWait = 2 * time.Second
	done := make(chan *Report, 1)
	go func() {
		rep, err := Sync(context.Background(), a.h, nothingFound)
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	select {
	case rep := <-done:
		if rep == nil || rep.Problem == nil || !strings.Contains(rep.Problem.Error(), "no answer") {
			t.Errorf("a silent remote: %+v", rep)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a sync with a silent remote never ends")
	}
}

// An entry marked private after it was shared is no longer reachable on
// the remote from this home's ref: the ref is pushed by force, so
// nothing needs its old commits, and they hold every text it published.
func TestReviewPrivateAfterShareLeavesNoHistory(t *testing.T) {
	remote := bareRemote(t)
	a := newTestHome(t, "a", remote)
	a.save(records.ActionCreate, "x", "X", "a text to take back")
	a.sync()
	l := a.local()["decision/x"]
	d := clone(l.doc)
	records.SetTeam(d, records.Team{Private: records.PrivateByHand})
	records.AddChange(d, a.now.Format(time.RFC3339), "private")
	root := a.h.Layout.RecordsDir()
	target, err := records.ResolveTarget(root, "", l.abs, records.ActionUpdate, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.h.Save(context.Background(), a.h.Command("test"), records.WriteRequest{Action: records.ActionUpdate, Target: target, Input: records.InputOf(d), Hash: l.hash, KeepID: true}); err != nil {
		t.Fatal(err)
	}
	a.sync()
	out, err := exec.Command("git", "--git-dir="+remote, "log", "-p", "refs/zylos/team/a").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "a text to take back") {
		t.Error("the remote's history of this home's ref still holds the entry marked private")
	}
}

// A member's origin and session are checked as any of its fields: an
// origin that is no home's name, a session that is no session id, are
// refused with the entry.
func TestAttackMemberOriginAndSessionChecked(t *testing.T) {
	good := `{"id": "x", "category": "decision", "title": "X", "record_status": "active", "content": {"decision": "d"}`
	for _, tail := range []string{`, "origin": "evil\nZylos-Home: a"}`, `, "origin": "` + strings.Repeat("a", 100) + `"}`, `, "session": "s\nZylos-Source: hook"}`} {
		if _, err := decodeEntry("records/decisions/x.json", []byte(good+tail)); err == nil {
			t.Errorf("accepted %s", tail)
		}
	}
	if _, err := decodeEntry("records/decisions/x.json", []byte(good+`, "origin": "laptop", "session": "9f1c-4e2a_b.1"}`)); err != nil {
		t.Errorf("refused a sound entry: %v", err)
	}
}

// A transport that does not reach a repository is refused at join, at once.
func TestAttackJoinRefusesFdTransport(t *testing.T) {
	a := newTestHome(t, "a", bareRemote(t))
	if _, err := Leave(a.h.Layout); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Join(context.Background(), a.h, "fd::3", "a")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "transport 'fd' not allowed") {
			t.Errorf("join fd::3: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("join fd::3 hangs")
	}
}
