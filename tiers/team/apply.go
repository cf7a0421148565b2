package team

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/zylos/zylos-memory/tiers/records"
)

// step is one change a member's commit asks of this home.
type step struct {
	key   string
	their *Entry
	// take sets the record to their text; keep leaves ours.
	take bool
	// conflict is the record's conflict after the step (nil: none).
	conflict *records.Conflict
	create   bool
	// found is set when the step found a conflict.
	found bool
	// history is the entry's lineage here after the step.
	history []string
	// dropped are texts that lost too, kept only in the change log.
	dropped []*records.Conflict
}

// applyMember applies what member changed since its commit applied last.
func (s *syncer) applyMember(ctx context.Context, member string, theirs plumbing.Hash) error {
	m := s.st.Members[member]
	if m == nil {
		m = &Member{}
		s.st.Members[member] = m
	}
	m.Gone = false
	base := s.repo.ref(appliedRefs + member)
	if theirs == base && len(s.st.Retry[member]) == 0 {
		return nil
	}
	their, info, skipped, err := s.entriesOf(theirs)
	if err != nil {
		s.rep.Skipped = append(s.rep.Skipped, fmt.Sprintf("%s: %v", member, err))
		return nil
	}
	if info.Name != member {
		s.rep.Skipped = append(s.rep.Skipped, fmt.Sprintf("%s: its commit names the home %q: left alone", member, info.Name))
		return nil
	}
	baseEntries, _, _, err := s.entriesOf(base)
	if err != nil {
		baseEntries = map[string]*Entry{} // a base gone from the repository: compare with nothing
	}
	for i := range skipped {
		skipped[i] = member + ": " + skipped[i]
	}
	s.rep.Skipped = append(s.rep.Skipped, skipped...)
	m.Commit, m.PublishedAt, m.Entries, m.Skipped = theirs.String(), info.PublishedAt, len(their), shown(skipped)

	keys := make([]string, 0, len(their))
	for key := range their {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	// The steps by the session that made them there: each session's
	// changes are one journal commit, as they were in their home.
	bySession := map[string][]step{}
	var sessions []string
	for _, key := range keys {
		st, ok := s.decide(member, baseEntries[key], their[key], s.local[key])
		if !ok {
			continue
		}
		session := their[key].Session
		if bySession[session] == nil {
			sessions = append(sessions, session)
		}
		bySession[session] = append(bySession[session], st)
	}
	for _, session := range sessions {
		if err := s.applySteps(ctx, member, session, bySession[session]); err != nil {
			return err
		}
	}
	if len(sessions) > 0 {
		if err := s.readLocal(); err != nil {
			return err
		}
	}
	for key, e := range their {
		s.st.Seen[key] = max(s.st.Seen[key], e.Rev)
	}
	delete(s.st.Retry, member)
	if len(s.failed) > 0 {
		s.st.Retry[member], s.failed = shownKeys(s.failed), nil
	}
	if err := s.repo.setRef(ctx, appliedRefs+member, theirs, base); err != nil {
		return err
	}
	m.AppliedAt = s.now.UTC().Format(time.RFC3339)
	return nil
}

// applySteps applies steps of member's session as one journal change.
func (s *syncer) applySteps(ctx context.Context, member, session string, steps []step) error {
	applied := 0
	done := func(st step, err error) {
		if err != nil {
			s.rep.Skipped = append(s.rep.Skipped, fmt.Sprintf("%s: %s: %v", member, st.key, err))
			s.failed = append(s.failed, st.key)
			return
		}
		applied++
		s.st.History[st.key] = st.history
		if st.found {
			s.rep.Conflicts = append(s.rep.Conflicts, st.key)
		}
	}
	err := s.h.Around(ctx, s.change(member, session, len(steps)), func() error {
		rest, err := s.createAll(member, steps, done)
		if err != nil {
			return err
		}
		for _, st := range rest {
			done(st, s.apply(member, st))
		}
		return nil
	})
	s.rep.Applied[member] += applied
	s.st.Arrived += applied
	return err
}

// decide is what their entry t asks of ours o, given the member's entry
// b this home applied last (nil: none). The merge is by identity and by
// lineage, never by a clock: a state (text and kept text) in the other
// side's history is one that side moved on from.
func (s *syncer) decide(member string, b, t *Entry, o *local) (step, bool) {
	st := step{key: t.key(), their: t}
	if s.st.retrying(member, st.key) {
		b = nil // its apply failed: taken again as if new
	}
	if b != nil && canonical(b) == canonical(t) {
		return st, false // the member changed nothing of it
	}
	if o == nil {
		if b != nil || s.unreadable[st.key] {
			return st, false // deleted here, or here and unreadable: never replaced
		}
		st.create, st.take, st.conflict = true, true, t.Conflict
		st.history = joined(nil, t.History)
		return st, true
	}
	if o.private != "" {
		return st, false // marked private here: this home keeps its own
	}
	ours, mine := o.entry, s.st.History[st.key]
	ourLine, theirLine := lineOf(ours, o.conflict), lineOf(t, t.Conflict)
	st.conflict, st.history = o.conflict, joined(mine, t.History)
	switch {
	case ourLine == theirLine:
		if !newTags(ours.Tags, t.Tags) {
			s.st.History[st.key] = st.history
			return st, false
		}
		return st, true
	case slices.Contains(t.History, ourLine):
		// they moved on from our state: theirs is the newer, kept text
		// (or its resolution) and all
		st.take, st.conflict = true, t.Conflict
		st.history = joined(nil, t.History)
		return st, true
	case slices.Contains(mine, theirLine):
		return st, false // we moved on from theirs
	}
	// Changed on both sides. The entry shows the text of the later
	// revision in the team's logical time (equal ones by the homes' names,
	// the same way in every home); beside it the kept text is this home's
	// own when it lost, else the one kept already; any other text that
	// lost goes to the record's change log. Both histories join, so each
	// side finds the other's state behind the result.
	at := s.now.UTC().Format(time.RFC3339)
	ourText := &records.Conflict{Home: s.cfg.Name, At: at, Title: ours.Title, Content: ours.Content, Tags: ours.Tags, RecordStatus: ours.Status}
	theirText := &records.Conflict{Home: member, At: at, Title: t.Title, Content: t.Content, Tags: t.Tags, RecordStatus: t.Status}
	if o.origin != "" {
		ourText.Home = o.origin
	}
	shared := o.shared(s.cfg.Name)
	ourRev := s.revOf(st.key, shared.digest())
	st.take = ours.text() != t.text() && (t.Rev > ourRev || t.Rev == ourRev && member > s.cfg.Name)
	winner := ours.text()
	if st.take {
		winner = t.text()
	}
	// The texts that lost, each with the history that may have moved on
	// from it: the other side's. A text the other side had and changed is
	// no loser, only an older state of it.
	type loser struct {
		text  *records.Conflict
		other []string
	}
	var losers []loser
	if st.take {
		losers = append(losers, loser{ourText, t.History})
	}
	losers = append(losers, loser{o.conflict, t.History})
	if !st.take && ours.text() != t.text() {
		losers = append(losers, loser{theirText, mine})
	}
	losers = append(losers, loser{t.Conflict, mine})
	st.conflict = nil
	for _, l := range losers {
		c := l.text
		switch {
		case c == nil || conflictText(c) == winner || slices.Contains(l.other, keptLine(c)):
		case st.conflict == nil:
			st.conflict = c
		case conflictText(c) != conflictText(st.conflict) && !slices.ContainsFunc(st.dropped, func(d *records.Conflict) bool { return conflictText(d) == conflictText(c) }):
			st.dropped = append(st.dropped, c)
		}
	}
	st.found = ours.text() != t.text()
	if !st.take && st.conflict == o.conflict && len(st.dropped) == 0 && !newTags(ours.Tags, t.Tags) {
		s.st.History[st.key] = st.history // nothing to write: ours says it all
		return st, false
	}
	return st, true
}

// keptLine is the line of a kept text as the state it was once: that
// text with nothing kept beside it.
func keptLine(c *records.Conflict) string {
	return lineOf(&Entry{Title: c.Title, Content: c.Content, Status: c.RecordStatus}, nil)
}

// lineOf is the digest of an entry's state as lineage counts it: its
// text and the text kept beside it.
func lineOf(e *Entry, kept *records.Conflict) string {
	return shortHash(e.text() + "\x00" + conflictText(kept))
}

// newTags reports whether theirs holds a tag ours lacks.
func newTags(ours, theirs []string) bool {
	for _, t := range theirs {
		if !slices.Contains(ours, t) {
			return true
		}
	}
	return false
}

// createAll creates the records of the steps that create one in one batch
// under the records lock, then renders them into the markdown in one
// ingest (a record with no entry is rendered into its file): a first
// sync of a team of thousands of entries writes each reference file once,
// not once per entry. It answers the other steps, and a created entry
// whose status is not active as a status move.
func (s *syncer) createAll(member string, steps []step, done func(step, error)) ([]step, error) {
	var creates, rest []step
	for _, st := range steps {
		if st.create {
			creates = append(creates, st)
		} else {
			rest = append(rest, st)
		}
	}
	if len(creates) == 0 {
		return rest, nil
	}
	root := s.h.Layout.RecordsDir()
	lock, err := records.AcquireWriteLock(root, s.h.Warn)
	if err != nil {
		return nil, err
	}
	batch, err := records.StartBatch(lock, s.now, nil)
	if err != nil {
		lock.Release()
		return nil, err
	}
	batch.FromTeam = member
	var moved []step
	for _, st := range creates {
		t := st.their
		abs := filepath.Join(root, records.Folder(t.Category), t.ID+".json")
		err := batch.Create(abs, t.Category, s.created(member, st))
		done(st, err)
		if err == nil && t.Status != records.StatusActive {
			moved = append(moved, st)
		}
	}
	err = batch.Finish()
	lock.Release()
	if err != nil {
		return nil, err
	}
	if s.h.HasView() {
		if _, err := s.h.Ingest(false, 0); err != nil {
			return nil, err
		}
	}
	for _, st := range moved {
		t := st.their
		abs := filepath.Join(root, records.Folder(t.Category), t.ID+".json")
		if err := s.move(member, abs, records.StatusActive, t); err != nil {
			s.rep.Skipped = append(s.rep.Skipped, fmt.Sprintf("%s: %s: %v", member, st.key, err))
		}
	}
	return rest, nil
}

// created is the document of a record a step creates.
func (s *syncer) created(member string, st step) map[string]any {
	t := st.their
	now := s.now.UTC().Format(time.RFC3339)
	origin := t.Origin
	if origin == "" {
		origin = member
	}
	if origin == s.cfg.Name {
		origin = ""
	}
	d := records.NewDocument(t.Category, t.ID, t.Title, now)
	d["tags"] = anyList(tagsOrDefault(t.Tags))
	d["content"] = t.Content
	// The files of its home's memory are not this one's: a record naming
	// a reference file was shown there once, and here it must be shown
	// first (rendered into its kind's file), not retired as an entry
	// removed by hand.
	var related []string
	for _, f := range t.RelatedFiles {
		if !strings.HasPrefix(f, "memory/") {
			related = append(related, f)
		}
	}
	if len(related) > 0 {
		d["related_files"] = related
	}
	records.SetTeam(d, records.Team{Origin: origin, Conflict: st.conflict})
	records.AddChange(d, now, "from "+member+" (team)")
	return d
}

// apply makes one step through the records layer: the record, its entry
// in the markdown, under the records lock.
func (s *syncer) apply(member string, st step) error {
	t := st.their
	root := s.h.Layout.RecordsDir()
	abs := filepath.Join(root, records.Folder(t.Category), t.ID+".json")
	now := s.now.UTC().Format(time.RFC3339)
	o := s.local[st.key]
	d := clone(o.doc)
	status := o.entry.Status
	summary := "from " + member + " (team)"
	if st.take {
		d["title"], d["content"] = t.Title, t.Content
		status = t.Status
	}
	if st.found {
		shown := map[bool]string{true: "the text from " + member, false: "this home's text"}[st.take]
		summary = fmt.Sprintf("conflict with the text from %s: both kept, the entry shows %s", member, shown)
	}
	d["tags"] = anyList(union(o.entry.Tags, t.Tags))
	for _, c := range st.dropped {
		records.AddChangeKeeping(d, now, "conflict: "+c.Home+"'s text lost too, kept here", "team.conflict", conflictObject(c))
	}
	records.SetTeam(d, records.Team{Origin: o.origin, Private: o.private, Conflict: st.conflict})
	records.AddChange(d, now, summary)
	if status != o.entry.Status {
		// the text first, as an active record, then the status move
		if o.entry.Status != records.StatusActive {
			if err := s.move(member, abs, o.entry.Status, &Entry{Status: records.StatusActive}); err != nil {
				return err
			}
			data, err := readRecord(abs)
			if err != nil {
				return err
			}
			o = data
			d2 := clone(o.doc)
			for _, k := range []string{"title", "content", "tags", "team"} {
				if v, ok := d[k]; ok {
					d2[k] = v
				} else {
					delete(d2, k)
				}
			}
			records.AddChange(d2, now, summary)
			d = d2
		}
	}
	if _, err := s.write(member, records.ActionUpdate, abs, d, o.hash); err != nil {
		return err
	}
	return s.move(member, abs, records.StatusActive, &Entry{Status: status, RetiredReason: t.RetiredReason, ArchivedReason: t.ArchivedReason})
}

// move carries a status from one to another by the records' lifecycle
// actions: retire and archive travel as status changes.
func (s *syncer) move(member, abs, from string, to *Entry) error {
	var actions []records.Action
	switch {
	case from == to.Status:
	case from == records.StatusActive && to.Status == records.StatusRetired:
		actions = []records.Action{records.ActionRetire}
	case from == records.StatusActive && to.Status == records.StatusArchived:
		actions = []records.Action{records.ActionArchive}
	case from == records.StatusRetired && to.Status == records.StatusActive:
		actions = []records.Action{records.ActionRestore}
	case from == records.StatusArchived && to.Status == records.StatusActive:
		actions = []records.Action{records.ActionUnarchive}
	case from == records.StatusArchived && to.Status == records.StatusRetired:
		actions = []records.Action{records.ActionUnarchive, records.ActionRetire}
	case from == records.StatusRetired && to.Status == records.StatusArchived:
		actions = []records.Action{records.ActionRestore, records.ActionArchive}
	}
	for _, a := range actions {
		reason := to.RetiredReason
		if a == records.ActionArchive {
			reason = to.ArchivedReason
		}
		if reason == "" {
			reason = string(a) + "d by " + member + " (team)"
		}
		req := records.WriteRequest{Action: a, Reason: reason}
		if _, err := s.do(member, req, abs); err != nil {
			return err
		}
	}
	return nil
}

// write is a create or an update of the record at abs with document d.
func (s *syncer) write(member string, a records.Action, abs string, d map[string]any, hash string) (records.Answer, error) {
	return s.do(member, records.WriteRequest{Action: a, Input: records.InputOf(d), Hash: hash, KeepID: true}, abs)
}

// do makes one records write at abs as a change from member, its entry
// kept in step in the markdown.
func (s *syncer) do(member string, req records.WriteRequest, abs string) (records.Answer, error) {
	root := s.h.Layout.RecordsDir()
	category := records.CategoryOfFolder(filepath.Base(filepath.Dir(abs)))
	cat := ""
	if req.Action == records.ActionCreate {
		cat = category
	}
	target, err := records.ResolveTarget(root, "", abs, req.Action, cat)
	if err != nil {
		return nil, err
	}
	req.Target, req.FromTeam, req.Now = target, member, s.now
	req.View = s.h.View(root)
	return records.Write(req)
}

// markPrivate keeps a record local: its team object says why, and its
// entry shows it.
func (s *syncer) markPrivate(l *local, why string) error {
	d := clone(l.doc)
	records.SetTeam(d, records.Team{Origin: l.origin, Private: why, Conflict: l.conflict})
	records.AddChange(d, s.now.UTC().Format(time.RFC3339), "kept local by the team: "+why)
	_, err := s.do("", records.WriteRequest{Action: records.ActionUpdate, Input: records.InputOf(d), Hash: l.hash, KeepID: true}, l.abs)
	return err
}

func readRecord(abs string) (*local, error) {
	data, err := readFile(abs)
	if err != nil {
		return nil, err
	}
	return localOf(abs, data)
}

func clone(d map[string]any) map[string]any {
	data, _ := json.Marshal(d)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, t := range b {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return tagsOrDefault(out)
}

// conflictObject is a kept text as the change log holds it.
func conflictObject(c *records.Conflict) map[string]any {
	var out map[string]any
	data, _ := json.Marshal(c)
	_ = json.Unmarshal(data, &out)
	return out
}

// maxShown bounds the lines kept of a list a member can make as long as
// it likes (its malformed entries, its failed ones).
const maxShown = 20

// shown is list cut to maxShown lines, the last saying how many more.
func shown(list []string) []string {
	if len(list) <= maxShown {
		return list
	}
	return append(slices.Clone(list[:maxShown]), fmt.Sprintf("... and %d more", len(list)-maxShown))
}

// maxRetried bounds the failed entries of a member taken again.
const maxRetried = 1000

// shownKeys is keys cut to maxRetried.
func shownKeys(keys []string) []string {
	if len(keys) > maxRetried {
		return keys[:maxRetried]
	}
	return keys
}

// anyList is a list of strings as a decoded document holds it.
func anyList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func tagsOrDefault(tags []string) []string {
	if len(tags) == 0 {
		return []string{"team"}
	}
	return tags
}
