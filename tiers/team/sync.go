package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/zylos/zylos-memory/internal/flock"
	"github.com/zylos/zylos-memory/tiers/home"
	"github.com/zylos/zylos-memory/tiers/journal"
	"github.com/zylos/zylos-memory/tiers/records"
)

// Scanner finds credentials in texts (by key): for each key with a
// finding, the rule that matched. An error publishes nothing new.
type Scanner func(ctx context.Context, texts map[string]string) (map[string]string, error)

// syncWait bounds the wait for another sync of the same home.
const syncWait = 2 * time.Minute

// Report is what one sync did.
type Report struct {
	// Applied counts, by member, the entries taken from it.
	Applied map[string]int
	// Conflicts are the entries found changed on both sides, by key.
	Conflicts []string
	// Refused are the entries kept local for a secret, "key: rule".
	Refused []string
	// Skipped are a member's entries left out, named with why.
	Skipped []string
	// Published is how many entries this home's commit holds; Pushed is
	// whether it reached the remote in this sync.
	Published int
	Pushed    bool
	// Problem is what kept the sync from the remote, if anything: no
	// memory is lost by it, and the next sync tries again.
	Problem error
}

// Arrived is how many entries the sync applied.
func (r *Report) Arrived() int {
	n := 0
	for _, c := range r.Applied {
		n += c
	}
	return n
}

// syncer is one sync of one home.
type syncer struct {
	h     *home.Home
	cfg   Config
	repo  *repo
	st    State
	scan  Scanner
	rep   *Report
	now   time.Time
	local map[string]*local
	// unreadable are the keys of records here that cannot be read as
	// entries: never replaced by a member's.
	unreadable map[string]bool
	// failed are the keys of the member being applied whose apply failed.
	failed []string
}

// Sync fetches the team's refs, applies what each member changed since
// its commit applied last, publishes this home's shared records and
// pushes them. Only one sync of a home runs at a time. A remote that
// cannot be reached is the report's Problem, not an error: the local
// memory is untouched by it.
func Sync(ctx context.Context, h *home.Home, scan Scanner) (*Report, error) {
	cfg, err := ReadConfig(h.Layout)
	if err != nil {
		return nil, err
	}
	release, err := flock.AcquireWithin(dir(h.Layout)+"/sync.lock", "team sync", syncWait)
	if err != nil {
		return nil, err
	}
	defer release()
	r, err := openRepo(ctx, repoPath(h.Layout), h.Environ)
	if err != nil {
		return nil, err
	}
	s := &syncer{h: h, cfg: cfg, repo: r, st: ReadState(h.Layout), scan: scan, now: h.Now(),
		rep: &Report{Applied: map[string]int{}}}
	s.st.Book = readBook(h.Layout)
	err = s.run(ctx)
	if err != nil || s.rep.Problem != nil || len(s.st.Retry) > 0 {
		s.st.LocalStamp = "" // the next sync reads everything again
	}
	if s.local != nil {
		s.st.Conflicts = s.conflicts()
	}
	s.st.LastSync = s.now.UTC().Format(time.RFC3339)
	if p := s.rep.Problem; p != nil {
		if s.st.LastError != p.Error() {
			s.st.ErrorSince = s.st.LastSync
		}
		s.st.LastError = p.Error()
	} else {
		s.st.LastError, s.st.ErrorSince = "", ""
	}
	if werr := writeJSON(bookPath(h.Layout), s.st.Book); err == nil {
		err = werr
	}
	if werr := writeJSON(statePath(h.Layout), s.st); err == nil {
		err = werr
	}
	return s.rep, err
}

func (s *syncer) run(ctx context.Context) error {
	fetched, fetchErr := s.fetch(ctx)
	if fetchErr != nil {
		s.rep.Problem = fetchErr
	}
	if err := s.settle(ctx); err != nil {
		return err
	}
	stamp := localStamp(s.h.Layout.RecordsDir())
	if fetchErr == nil && stamp == s.st.LocalStamp && s.nothingNew(fetched) {
		s.rep.Published = s.st.Shared
		return nil // a minute like most: nothing read, built or sent
	}
	s.st.LocalStamp = stamp // taken before the records are read: a write meanwhile shows next time
	if err := s.readLocal(); err != nil {
		return err
	}
	if fetchErr == nil {
		names := make([]string, 0, len(fetched))
		for name := range fetched {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if name == s.cfg.Name {
				continue
			}
			if err := s.applyMember(ctx, name, fetched[name]); err != nil {
				return err
			}
		}
		for name, m := range s.st.Members {
			if _, ok := fetched[name]; !ok {
				m.Gone = true
			}
		}
	}
	own, err := s.publish(ctx)
	if err != nil {
		return err
	}
	if fetchErr != nil {
		return nil // whose the remote's ref is cannot be told: nothing is pushed
	}
	if remote, ok := fetched[s.cfg.Name]; ok && remote == own {
		return nil
	} else if ok {
		if id := s.homeIDOf(remote); id != "" && id != s.cfg.HomeID {
			s.rep.Problem = fmt.Errorf("another home publishes as %q on %s: nothing pushed; join under another name", s.cfg.Name, s.cfg.URL)
			return nil
		}
	}
	if _, err := s.repo.git(ctx, "push", "--force", "--quiet", s.cfg.URL, ownRef+":"+teamRefs+s.cfg.Name); err != nil {
		s.rep.Problem = err
		return nil
	}
	s.rep.Pushed = true
	return nil
}

// nothingNew reports whether no member published since its commit was
// applied, none vanished, and the remote holds this home's commit.
func (s *syncer) nothingNew(fetched map[string]plumbing.Hash) bool {
	own := s.repo.ref(ownRef)
	if own.IsZero() || fetched[s.cfg.Name] != own {
		return false
	}
	for name, h := range fetched {
		if name != s.cfg.Name && h != s.repo.ref(appliedRefs+name) {
			return false
		}
	}
	for name, m := range s.st.Members {
		if _, ok := fetched[name]; !ok && !m.Gone {
			return false
		}
	}
	return true
}

// localStamp is the modification times of the shared records' folders:
// every record write renames a file into one, so an unchanged stamp is
// unchanged records.
func localStamp(root string) string {
	var b strings.Builder
	for _, cat := range Shared {
		if info, err := os.Stat(filepath.Join(root, records.Folder(cat))); err == nil {
			fmt.Fprintf(&b, "%s:%d;", cat, info.ModTime().UnixNano())
		}
	}
	return b.String()
}

// settle shows in the markdown the records a sync killed between its
// batch and its render left without an entry (an ingest renders them; it
// costs a few stats when there is nothing to do).
func (s *syncer) settle(ctx context.Context) error {
	if !s.h.HasView() {
		return nil
	}
	return s.h.Around(ctx, s.h.Command("team sync"), func() error {
		_, err := s.h.Ingest(false, 0)
		return err
	})
}

// fetch brings every member's ref; those gone from the remote go here
// too (a member's entries stay in this home whatever its ref does).
func (s *syncer) fetch(ctx context.Context) (map[string]plumbing.Hash, error) {
	if _, err := s.repo.git(ctx, "fetch", "--no-tags", "--prune", "--force", "--quiet", s.cfg.URL,
		"+"+teamRefs+"*:"+fetchedRefs+"*"); err != nil {
		return nil, err
	}
	return s.repo.refs(ctx, fetchedRefs)
}

func (s *syncer) readLocal() error {
	local, unreadable, problems, err := readLocal(s.h.Layout.RecordsDir())
	if err != nil {
		return err
	}
	s.local, s.unreadable = local, unreadable
	for key, l := range local {
		if h, line := s.st.History[key], lineOf(l.entry, l.conflict); len(h) == 0 || h[len(h)-1] != line {
			s.st.History[key] = lineage(h, line)
		}
	}
	s.rep.Skipped = append(s.rep.Skipped, problems...)
	return nil
}

// homeInfo is a member tree's home.json.
type homeInfo struct {
	Name        string `json:"name"`
	HomeID      string `json:"home_id"`
	PublishedAt string `json:"published_at"`
	Format      int    `json:"format"`
}

// homeIDOf is the home id a published commit names, "" if none.
func (s *syncer) homeIDOf(c plumbing.Hash) string {
	files, _, err := s.repo.files(c, maxEntry)
	if err != nil {
		return ""
	}
	var info homeInfo
	if json.Unmarshal(files[homeFile], &info) != nil {
		return ""
	}
	return info.HomeID
}

// entriesOf reads the entries of a member's commit by key; what cannot
// be read is named in skipped.
func (s *syncer) entriesOf(c plumbing.Hash) (map[string]*Entry, homeInfo, []string, error) {
	files, skipped, err := s.repo.files(c, maxEntry)
	if err != nil {
		return nil, homeInfo{}, nil, err
	}
	var info homeInfo
	if data, ok := files[homeFile]; ok {
		if err := json.Unmarshal(data, &info); err != nil {
			skipped = append(skipped, homeFile+": "+err.Error())
		}
	}
	got := map[string]*Entry{}
	for path, data := range files {
		if path == homeFile {
			continue
		}
		e, err := decodeEntry(path, data)
		if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		got[e.key()] = e
	}
	return got, info, skipped, nil
}

// revOf is the revision of an entry of this home whose text digests to
// digest: the one it was published with, or one more than any it has
// published or seen when it changed since.
func (s *syncer) revOf(key, digest string) int {
	p := s.st.Published[key]
	if p.Digest == digest && p.Rev > 0 {
		return p.Rev
	}
	return max(p.Rev, s.st.Seen[key]) + 1
}

// publish commits this home's shared entries on its own ref when they
// changed, and answers the ref.
func (s *syncer) publish(ctx context.Context) (plumbing.Hash, error) {
	old := s.repo.ref(ownRef)
	if err := s.keepSecretsLocal(ctx); err != nil {
		return old, err
	}
	files := map[string][]byte{}
	keys := make([]string, 0, len(s.local))
	for key := range s.local {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	var sessions map[string]string // by record path, read once when needed
	for _, key := range keys {
		l := s.local[key]
		if l.private != "" {
			continue
		}
		e := l.shared(s.cfg.Name)
		e.History = s.st.History[key]
		digest := e.digest()
		e.Rev = s.revOf(key, digest)
		if p, ok := s.st.Published[key]; ok && p.Digest == digest {
			e.Session = p.Session
		} else if l.origin == "" {
			if sessions == nil {
				sessions = s.sessions(ctx)
			}
			e.Session = sessions[l.rel]
		}
		s.st.Published[key] = Published{Digest: digest, Rev: e.Rev, Session: e.Session}
		data, err := json.MarshalIndent(&e, "", "  ")
		if err != nil {
			return old, err
		}
		files[e.path()] = append(data, '\n')
	}
	s.rep.Published, s.st.Shared = len(files), len(files)
	set := setDigest(files)
	if set == s.st.PublishedSet && !old.IsZero() {
		return old, nil // as published last: not even a tree to build
	}
	tree, err := s.repo.tree(s.withHome(files))
	if err != nil {
		return old, err
	}
	if !old.IsZero() {
		// home.json's time alone changing makes no new commit.
		prev, _, err := s.repo.files(old, maxEntry)
		if err == nil && sameEntries(prev, files) {
			s.st.PublishedSet = set
			return old, nil
		}
	}
	// No parent: the ref is pushed by force and read whole, so nothing
	// needs the commits before, which hold every text this home ever
	// published (an entry marked private since among them).
	c, err := s.repo.commit(tree, plumbing.ZeroHash, fmt.Sprintf("%s: %d entries\n", s.cfg.Name, len(files)), s.now)
	if err != nil {
		return old, err
	}
	if err := s.repo.setRef(ctx, ownRef, c, old); err != nil {
		return old, err
	}
	s.st.PublishedSet = set
	return c, nil
}

// sessionsScanned bounds the journal's changes read for the sessions of
// the entries a publish sends changed.
const sessionsScanned = 500

// sessions is, by record file (relative to memory/), the Claude Code
// session of its newest change in the journal's recent changes: a
// member that applies the entry names that session in its journal. A
// journal that cannot be read names none.
func (s *syncer) sessions(ctx context.Context) map[string]string {
	got := map[string]string{}
	changes, err := s.h.Journal().History(ctx, journal.Query{Path: "records", Limit: sessionsScanned, Detail: journal.Names})
	if err != nil {
		return got
	}
	for _, c := range changes {
		for _, p := range c.Paths {
			if _, seen := got[p]; !seen {
				got[p] = c.Session
			}
		}
	}
	return got
}

// setDigest is a digest of a published tree's files.
func setDigest(files map[string][]byte) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(p + "\x00" + shortHash(string(files[p])) + "\n")
	}
	return shortHash(b.String())
}

// withHome adds home.json to a tree's files.
func (s *syncer) withHome(files map[string][]byte) map[string][]byte {
	info, _ := json.MarshalIndent(homeInfo{Name: s.cfg.Name, HomeID: s.cfg.HomeID,
		PublishedAt: s.now.UTC().Format(time.RFC3339), Format: 1}, "", "  ")
	out := make(map[string][]byte, len(files)+1)
	for k, v := range files {
		out[k] = v
	}
	out[homeFile] = append(info, '\n')
	return out
}

// sameEntries reports whether a published tree holds files, home.json
// aside.
func sameEntries(prev, files map[string][]byte) bool {
	if len(prev) != len(files)+1 {
		return false
	}
	for k, v := range files {
		if string(prev[k]) != string(v) {
			return false
		}
	}
	return true
}

// keepSecretsLocal scans each entry that changed since it was last found
// clean, and marks the ones holding a credential private, in their
// record and their entry, before anything is published. A scanner that
// fails publishes nothing new: the entries it did not clear stay out.
func (s *syncer) keepSecretsLocal(ctx context.Context) error {
	texts := map[string]string{}
	for key, l := range s.local {
		if l.private != "" {
			continue
		}
		e := l.shared(s.cfg.Name)
		if p, ok := s.st.Published[key]; ok && p.Digest == e.digest() {
			continue // published as it is: scanned then
		}
		texts[key] = plainText(&e)
	}
	if len(texts) == 0 {
		return nil
	}
	var found map[string]string
	var err error
	if s.scan == nil {
		err = errors.New("no secret scanner")
	} else {
		found, err = s.scan(ctx, texts)
	}
	if err != nil {
		s.rep.Problem = fmt.Errorf("secret scan: %v: %d changed entries kept back", err, len(texts))
		for key := range texts {
			s.local[key].private = "unscanned" // this sync only: not written
		}
		return nil
	}
	keys := make([]string, 0, len(found))
	for key := range found {
		if s.local[key] != nil {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	c := s.h.Command("team sync")
	c.Summary = fmt.Sprintf("kept %d entries local: they hold a credential", len(keys))
	return s.h.Around(ctx, c, func() error {
		for _, key := range keys {
			l := s.local[key]
			why := records.SecretMark(found[key])
			s.rep.Refused = append(s.rep.Refused, key+": "+found[key])
			s.st.Refused[key] = why
			if err := s.markPrivate(l, why); err != nil {
				s.rep.Skipped = append(s.rep.Skipped, fmt.Sprintf("%s: not marked private: %v", key, err))
			}
			l.private = why
		}
		return nil
	})
}

// shared is the entry as this home publishes it, but for its revision,
// history and session, which the publish adds.
func (l *local) shared(me string) Entry {
	e := *l.entry
	e.Origin, e.Conflict = l.origin, l.conflict
	if e.Origin == "" {
		e.Origin = me
	}
	return e
}

// conflicts counts the local entries holding a conflict.
func (s *syncer) conflicts() int {
	n := 0
	for _, l := range s.local {
		if l.conflict != nil {
			n++
		}
	}
	return n
}

// members lists the names of a state's members, sorted.
func (st *State) members() []string {
	names := make([]string, 0, len(st.Members))
	for n := range st.Members {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// change is the journal change of entries applied from member.
func (s *syncer) change(member, session string, n int) journal.Change {
	return journal.Change{Source: journal.FromTeam, Command: "team sync", Home: member, Session: session,
		Summary: fmt.Sprintf("%d from %s", n, member)}
}
