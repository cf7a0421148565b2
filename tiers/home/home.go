package home

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/bridge"
	"github.com/zylos/zylos-memory/tiers/fulltext"
	"github.com/zylos/zylos-memory/tiers/journal"
	"github.com/zylos/zylos-memory/tiers/recall"
	"github.com/zylos/zylos-memory/tiers/records"
)

// Options is what an entry point knows of its request: the home it names
// and the environment, working directory and clock it came with.
type Options struct {
	ZylosDir string // absolute
	// LookupEnv reads the request's environment: os.LookupEnv in a
	// command, the hook's own environment in the memory service.
	LookupEnv func(string) (string, bool)
	Cwd       string // "" when unknown
	// Environ is the whole environment, for the programs the home runs
	// (the journal's git); nil is this process's.
	Environ []string
	// Now is the clock; nil is the one LookupEnv asks for (tiers.Clock).
	Now func() time.Time
	// Warn takes the notes of the changes (the bridge's, the journal's),
	// one line each; nil drops them.
	Warn func(string)
	// Conversations opens the home's conversation log for the search
	// index (c4sync.OpenConversations, which the tiers cannot import);
	// nil indexes none.
	Conversations fulltext.OpenConversations
}

// Settings are the effective settings of a home for one request, read
// once from its environment.
type Settings struct {
	// SyncThreshold is the count of unsummarized conversations above
	// which a memory sync is asked for: tiers.SyncThresholdVar, else the
	// layout's own.
	SyncThreshold int
	// ThresholdErr is why tiers.SyncThresholdVar was not taken (nil when
	// it was, or is unset).
	ThresholdErr error
	// TeamPeriod is how often the memory service syncs the home's team:
	// TeamPeriodVar, else a minute.
	TeamPeriod time.Duration
	// TeamPeriodErr is why TeamPeriodVar was not taken.
	TeamPeriodErr error
}

// TeamPeriodVar sets how often the memory service syncs a team.
const TeamPeriodVar = "ZYLOS_MEMORY_TEAM_PERIOD"

// teamPeriodIn reads TeamPeriodVar: a Go duration of 10 s or more.
func teamPeriodIn(lookup func(string) (string, bool)) (time.Duration, error) {
	v, ok := lookup(TeamPeriodVar)
	if !ok || v == "" {
		return time.Minute, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 10*time.Second {
		return time.Minute, fmt.Errorf("%s=%q: give a duration of 10s or more (1m, 90s)", TeamPeriodVar, v)
	}
	return d, nil
}

// Home is one zylos home opened for one request.
type Home struct {
	Layout   tiers.Layout // its kind pinned
	Kind     *tiers.Kind
	Now      func() time.Time
	Cwd      string
	Environ  []string
	Settings Settings
	// Session is the Claude Code session that runs the request, when its
	// environment names one (journal.SessionVar): its changes carry it.
	Session string
	Warn    func(string)
	// Conversations: see Options.
	Conversations fulltext.OpenConversations
	// JournalNote takes a journal failure, once for each new problem; nil
	// gives it to Warn as "journal: ...". It is never the change's failure.
	JournalNote func(error)

	journal  *journal.Journal
	resolved *resolution
}

// Open opens the home o names: the layout with its kind detected once,
// the clock, the settings. It refuses a clock or a layout setting that
// cannot be read; it touches nothing.
func Open(o Options) (*Home, error) {
	lookup := o.LookupEnv
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	now := o.Now
	if now == nil {
		var err error
		if now, err = tiers.Clock(lookup); err != nil {
			return nil, err
		}
	}
	get := func(k string) string { v, _ := lookup(k); return v }
	l := tiers.Layout{ZylosDir: o.ZylosDir, TZ: get("TZ"), LayoutEnv: get(tiers.LayoutVar)}
	if _, err := l.Setting(); err != nil {
		return nil, err
	}
	o.LookupEnv, o.Now = lookup, now
	return Of(l, o), nil
}

// Of is the home of a layout already read, for an entry point that holds
// one (the memory service's request, a scheduler task); o.ZylosDir is
// not read, and o.Now must be set. l's kind is pinned here.
func Of(l tiers.Layout, o Options) *Home {
	lookup := o.LookupEnv
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	l = l.Pinned()
	h := &Home{Layout: l, Kind: l.Kind(), Now: o.Now, Cwd: o.Cwd, Environ: o.Environ, Warn: o.Warn, Conversations: o.Conversations}
	h.Settings.SyncThreshold, h.Settings.ThresholdErr = h.Kind.SyncThresholdIn(lookup)
	h.Settings.TeamPeriod, h.Settings.TeamPeriodErr = teamPeriodIn(lookup)
	h.Session, _ = lookup(journal.SessionVar)
	return h
}

func (h *Home) warn(s string) {
	if h.Warn != nil {
		h.Warn(s)
	}
}

// Journal is the home's journal, opened once: the request's clock, and
// git run in the request's environment.
func (h *Home) Journal() *journal.Journal {
	if h.journal == nil {
		h.journal = journal.Open(h.Layout)
		h.journal.Now = h.Now
		h.journal.Environ = h.Environ
	}
	return h.journal
}

// Bridge is the bridge over the home's reference tier and records, on
// the request's clock, its notes to Warn.
func (h *Home) Bridge() bridge.Memory {
	return bridge.Memory{Layout: h.Layout, Now: h.Now(), Warn: h.Warn}
}

// View is the markdown view a write to the records root keeps in step:
// only the home's own root has one, and only once its reference tier
// exists; nil otherwise (a plugin-style root stays a standalone store).
func (h *Home) View(root string) records.View {
	if filepath.Clean(root) != filepath.Clean(h.Layout.RecordsDir()) {
		return nil
	}
	if !h.HasView() {
		return nil
	}
	return h.Bridge().View()
}

// Around runs write as one change c of the journal: the external edits
// found before it are committed first, then what write changed, as c.
// Writers through Around take turns. The journal's trouble goes to Warn,
// once, and never fails the write.
func (h *Home) Around(ctx context.Context, c journal.Change, write func() error) error {
	note := h.JournalNote
	if note == nil {
		note = func(err error) { h.warn("journal: " + err.Error()) }
	}
	return h.Journal().Around(ctx, c, note, write)
}

// Command is the change of the command named name, in the request's
// session.
func (h *Home) Command(name string) journal.Change {
	return journal.CommandChange(name, h.Session)
}

// Save makes one records write as the change c: the record (schema, lock,
// hash check), its markdown entry rendered under the records lock when
// the target is the home's own root, and the journal commit of both, in
// that order. req.Now defaults to the home's clock.
func (h *Home) Save(ctx context.Context, c journal.Change, req records.WriteRequest) (records.Answer, error) {
	if req.Now.IsZero() {
		req.Now = h.Now()
	}
	if req.View == nil {
		req.View = h.View(req.Target.Root())
	}
	var ans records.Answer
	err := h.Around(ctx, c, func() (err error) {
		ans, err = records.Write(req)
		return err
	})
	return ans, err
}

// Ingest takes the hand edits of the reference tier into the records
// (see bridge.Ingest); maxCreates bounds the records it creates (0: no
// bound). A home without a reference tier has nothing to ingest.
func (h *Home) Ingest(dryRun bool, maxCreates int) (bridge.Report, error) {
	b := h.Bridge()
	b.MaxCreates = maxCreates
	return bridge.Ingest(b, dryRun)
}

// HasView reports whether the home has a markdown view of its records
// (a memory/reference directory).
func (h *Home) HasView() bool { return h.Bridge().HasView() }

// HasMemory reports whether the home's memory directory exists.
func (h *Home) HasMemory() bool {
	fi, err := os.Stat(h.Layout.MemoryDir())
	return err == nil && fi.IsDir()
}

// Restore puts memory/rel (a path relative to the request's working
// directory, or to the memory) back as it was at at (a revision or a
// time), as a new change c: a reference file through the bridge, so
// that its records follow, a record through a records write.
func (h *Home) Restore(ctx context.Context, c journal.Change, path, at string) (string, error) {
	j := h.Journal()
	rel, err := j.Rel(path, h.Cwd)
	if err != nil {
		return "", err
	}
	loc, err := h.Layout.Location()
	if err != nil {
		return "", err
	}
	rev, err := j.At(ctx, at, loc)
	if err != nil {
		return "", err
	}
	return j.Restore(ctx, c, rel, rev, j.Restorer(rel, h.Now().In(loc), h.warn))
}

// Undo reverts every change session made, as the change c, keeping every
// later change by others; with dryRun it only says what it would do.
func (h *Home) Undo(ctx context.Context, c journal.Change, session string, dryRun bool) ([]string, error) {
	loc, err := h.Layout.Location()
	if err != nil {
		return nil, err
	}
	j := h.Journal()
	if dryRun {
		plan, err := j.PlanUndo(ctx, session)
		if err != nil {
			return nil, err
		}
		return plan.Lines(loc), nil
	}
	return j.Undo(ctx, c, session, loc)
}

// Index is the search index over the records root root ("" for the
// home's own) and, for the home's own, its conversation log.
func (h *Home) Index(root string) fulltext.Scope {
	return fulltext.ScopeOf(h.Layout, root, h.Conversations)
}

// Target is the memory file a path names, resolved once for the request.
type Target struct {
	Rel string // relative to memory/, with forward slashes
	// Reference is a record-backed reference file (reference/decisions.md),
	// whose edits the records follow (Ingest).
	Reference bool
}

// Resolve resolves path (absolute, relative to cwd, to the home or to
// memory/; a record id or a reference entry id stands for its file) to
// the memory file it names, links followed as the records guard follows
// them: the one reading of a tool's path for the journal and the ingest.
// A path outside the memory is journal.ErrOutside.
func (h *Home) Resolve(path, cwd string) (Target, error) {
	if r := h.resolved; r != nil && r.path == path && r.cwd == cwd {
		return r.target, r.err
	}
	rel, err := h.Journal().Rel(path, cwd)
	t := Target{Rel: rel, Reference: err == nil && bridge.IsReferenceFile(rel)}
	h.resolved = &resolution{path: path, cwd: cwd, target: t, err: err}
	return t, err
}

// resolution is the last path Resolve resolved: the hooks of one tool
// call ask for the same path more than once.
type resolution struct {
	path, cwd string
	target    Target
	err       error
}

// Retrieve is the block of memories related to prompt that the prompt
// hook injects, fitted once to room (the part of the context left to it;
// see recall.RetrieveOptions.Room), over the home's own records on the
// request's clock. reindex, when set, starts a build of a missing search
// index in a process of its own; warnings go to warn.
func (h *Home) Retrieve(ctx context.Context, prompt string, room int, reindex func() error, warn io.Writer) (string, error) {
	return recall.Retrieve(ctx, recall.RetrieveOptions{
		Prompt: prompt, Root: h.Layout.RecordsDir(), Layout: h.Layout, Conversations: h.Conversations, Now: h.Now(), Warn: warn,
		Reindex: reindex, Answers: true, Room: room,
	})
}
