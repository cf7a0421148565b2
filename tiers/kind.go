package tiers

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// Kind is a memory layout: which files a home injects at session start,
// what its reports and its doctor check, what a memory sync updates and
// tells the agent, and what init seeds. Each layout is one value; callers
// ask it for what differs rather than compare it.
type Kind struct {
	// Name is how --layout and the reports name it.
	Name string
	// aliases are the other names --layout accepts for it.
	aliases []string
	// Injected are the always-injected files, in the order they are
	// injected.
	Injected []InjectedFile
	// EntryFiles are the injected files that hold reference entries.
	EntryFiles []string
	// SyncThreshold is the number of unsummarized conversations above
	// which a memory sync is asked for (C4_SYNC_THRESHOLD overrides it).
	SyncThreshold int
	// Sections says the session's context is framed in zylos-core
	// v0.7.1's `=== LABEL ===` sections rather than the v2-era lines.
	Sections bool
	// BudgetAdvice is the command a file over its budget is fixed with.
	BudgetAdvice string
	// C4 is how the layout's zylos speaks the C4 commands.
	C4 C4Dialect

	marks      []string // files under memory/ any of which marks a home of this layout
	stateFile  string   // the injected file a memory sync updates with the current state
	syncRefs   []string // the reference files a memory sync updates
	skill      bool     // init installs this binary's memory skill
	seeds      []seed
	nodeFormat string // what its session-start-inject.js prints
	syncAsk    func(begin, end int64) string
	rotated    string // rotate's line for a rotation, with the new name for %s
	undated    bool   // rotate remarks on a log named by its modification date
	unchanged  string // rotate's line when there was nothing to rotate
	// sessionDate reads the date of a session log's header, as the
	// layout's rotate-session.js does.
	sessionDate func(content string) (string, bool)
	// emptyMoved: rotate moves an empty current.md aside as any log
	// without a header (v0.7.1), rather than giving it the header (v2).
	emptyMoved bool

	// The reports of the layout, each given the layout it reports for.
	parts         func(*Kind, Layout, int64) ([]ContextPart, error)
	status        func(*Kind, Layout, io.Writer) error
	consolidation func(*Kind, Layout, time.Time) (report JSObject, attention int, err error)
}

// C4Dialect is how a layout's zylos speaks the C4 commands where its
// eras differ: its c4-receive.js and its c4-checkpoint.js.
type C4Dialect struct {
	// StoredRoute: c4 receive stores the reply route in the message, a
	// message over 1,500 bytes as a preview pointing at its attachment,
	// and answers with the priority (the v2-era c4-receive.js). Without
	// it (v0.7.1) the message is stored as given, with no endpoint under
	// --no-reply, the route is added where the agent is shown it
	// (session-init), and the answer is `[C4] Message queued (id=N)`.
	StoredRoute bool
	// Subcommands: c4 checkpoint takes only create, list and latest, as
	// v0.7.1's c4-checkpoint.js; a bare id is an unknown command, --help
	// prints the usage on stderr, list without --limit lists them all.
	// Without it (v2-era) `c4 checkpoint <end_id>` creates one.
	Subcommands bool
}

// InjectedFile is one always-injected file of a layout.
type InjectedFile struct {
	Name   string // under memory/
	Label  string // the section it is framed in, in a layout of sections
	Budget int64  // bytes
	WarnAt int64  // bytes over which it is due for an audit; 0: no early warning
}

var (
	// KindV2 is Memory Architecture v2: core.md always injected.
	KindV2 = &Kind{
		Name:          "v2",
		Injected:      []InjectedFile{{Name: "core.md", Budget: CoreSizeCap}},
		SyncThreshold: 30,
		BudgetAdvice:  "zylos-memory consolidate",
		C4:            C4Dialect{StoredRoute: true},
		marks:         []string{"core.md"},
		stateFile:     "core.md",
		syncRefs:      []string{"decisions.md", "projects.md", "preferences.md"},
		skill:         true,
		seeds:         v2Seeds,
		nodeFormat:    FormatV2,
		parts:         coreParts,
		status:        func(_ *Kind, l Layout, w io.Writer) error { return Status(l, w) },
		consolidation: v2Consolidation,
		syncAsk: func(b, e int64) string {
			return fmt.Sprintf("Please invoke Memory Sync skill to process them: /memory sync --begin %d --end %d", b, e)
		},
		rotated:     "Rotated: current.md -> %s",
		undated:     true,
		unchanged:   "No rotation needed (same day).",
		sessionDate: SessionDate,
	}
	// KindV07 is zylos-core v0.7.1's layout: identity.md, state.md and
	// references.md injected, users/<id>/profile.md, reference/ideas.md.
	KindV07 = &Kind{
		Name:    "v07",
		aliases: []string{"v0.7", "v0.7.1", "v07.1"},
		// v0.7.1's labels, byte budgets and early-warning sizes: a file
		// over its warning size is within budget but due for an audit on
		// the next Memory Sync.
		Injected: []InjectedFile{
			{Name: "identity.md", Label: "BOT IDENTITY", Budget: 16 * 1024},
			{Name: "state.md", Label: "ACTIVE STATE", Budget: 16 * 1024, WarnAt: 10 * 1024},
			{Name: "references.md", Label: "REFERENCES", Budget: 16 * 1024, WarnAt: 8 * 1024},
		},
		EntryFiles:    []string{"references.md"},
		SyncThreshold: 15, // v0.7.1's CHECKPOINT_THRESHOLD
		Sections:      true,
		BudgetAdvice:  "zylos-memory status",
		C4:            C4Dialect{Subcommands: true},
		marks:         []string{"identity.md", "state.md", "references.md", "users", "reference/ideas.md"},
		// v0.7.1's skill says to update state.md with the current context.
		stateFile:     "state.md",
		syncRefs:      []string{"decisions.md", "projects.md", "preferences.md", "ideas.md"},
		seeds:         v07Seeds(),
		nodeFormat:    FormatText,
		parts:         sectionParts,
		status:        statusV07,
		consolidation: v07Consolidation,
		syncAsk:       func(int64, int64) string { return "Please use zylos-memory skill to process them." },
		rotated:       "Rotated current.md -> %s",
		unchanged:     "No rotation needed (current.md matches today).",
		sessionDate:   sessionDateV071,
		emptyMoved:    true,
	}
	// kinds are the layouts, the one Detect tries first first.
	kinds = []*Kind{KindV2, KindV07}
)

func (k *Kind) String() string { return k.Name }

// DefaultKind is the layout init seeds into a home that has neither
// layout's files nor a layout setting: the v2 layout of the contract,
// whose Node parity holds, unless `init --layout v07`.
var DefaultKind = KindV2

// UnmarkedKind is the layout of a home that has neither layout's files
// nor a layout setting, for every command but init: today's zylos,
// v0.7.1. A home without memory files is one zylos's own comm-bridge and
// scripts run in before anything seeds it (zylos's C4 creates its
// database on first use, its rotate-session.js makes sessions/ on its
// own); a home of this binary gets its core.md from init at once.
var UnmarkedKind = KindV07

// LayoutVar is the setting that names the layout of a home without
// either layout's files: in the environment, else in $ZYLOS_DIR/.env.
const LayoutVar = "ZYLOS_MEMORY_LAYOUT"

// ParseKind reads a --layout value: a layout's name or one of its aliases.
func ParseKind(s string) (*Kind, error) {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		if k.Name == s || slices.Contains(k.aliases, s) {
			return k, nil
		}
		names[i] = k.Name
	}
	return nil, fmt.Errorf("unknown layout %q (want %s)", s, strings.Join(names, " or "))
}

// AllInjected are the files under memory/ that some layout always
// injects, each once, in the order of the layouts and their injection:
// what a reader that serves every home, whatever its layout, treats as
// the home's core memory.
func AllInjected() []string {
	var names []string
	for _, k := range kinds {
		for _, f := range k.Injected {
			if !slices.Contains(names, f.Name) {
				names = append(names, f.Name)
			}
		}
	}
	return names
}

// SyncTrigger is the sentence that asks the agent for a memory sync of
// the conversations begin to end, in the words of the layout's skill.
func (k *Kind) SyncTrigger(begin, end int64) string { return k.syncAsk(begin, end) }

// ConsolidationReport is the report of the layout's consolidate.js, and
// how many things in it ask to be acted on.
func (k *Kind) ConsolidationReport(l Layout, now time.Time) (report JSObject, attention int, err error) {
	return k.consolidation(k, l, now)
}

// Budgets are the always-injected files against their budgets.
func (k *Kind) Budgets(l Layout) ([]Budget, error) {
	checks, err := k.checks(l)
	if err != nil {
		return nil, err
	}
	out := make([]Budget, len(checks))
	for i, c := range checks {
		out[i] = Budget{File: c.file, Size: -1, Budget: c.budget, WarnAt: c.warn}
		if c.info != nil {
			out[i].Size = c.info.Size()
		}
	}
	return out, nil
}

// checks stat the always-injected files; a missing one has no info.
func (k *Kind) checks(l Layout) ([]budgetCheck, error) {
	checks := make([]budgetCheck, 0, len(k.Injected))
	for _, f := range k.Injected {
		info, err := os.Stat(filepath.Join(l.MemoryDir(), f.Name))
		if err != nil && !isMissing(err) {
			return nil, fmt.Errorf("stat %s: %w", f.Name, err)
		}
		checks = append(checks, budgetCheck{file: f.Name, budget: f.Budget, warn: f.WarnAt, info: info})
	}
	return checks, nil
}

// UsersDir holds a v0.7 home's per-user profiles.
func (l Layout) UsersDir() string { return filepath.Join(l.MemoryDir(), "users") }

// Detect says which layout the home has: the first whose marks (v2:
// memory/core.md; v0.7: identity.md, state.md, references.md, users/,
// reference/ideas.md) any exists; else the one its setting names
// (LayoutVar in l.LayoutEnv, else in .env); found false with
// UnmarkedKind when it has neither.
func (l Layout) Detect() (kind *Kind, found bool) {
	if k := l.marked(); k != nil {
		return k, true
	}
	if k, err := l.Setting(); err == nil && k != nil {
		return k, true
	}
	return UnmarkedKind, false
}

// marked is the layout whose files the home has, nil when it has neither
// layout's.
func (l Layout) marked() *Kind {
	for _, k := range kinds {
		for _, mark := range k.marks {
			if exists(filepath.Join(l.MemoryDir(), filepath.FromSlash(mark))) {
				return k
			}
		}
	}
	return nil
}

// Setting is the layout the home's setting names (LayoutVar in
// l.LayoutEnv, else in $ZYLOS_DIR/.env), nil when neither sets it, or
// the error of a value that names no layout.
func (l Layout) Setting() (*Kind, error) {
	name, source := l.LayoutEnv, LayoutVar
	if name == "" {
		data, err := regfile.ReadFile(l.EnvFile())
		if err != nil {
			return nil, nil // no .env is no setting; an unreadable one is checked by Location
		}
		name, source = envFileValue(data, LayoutVar), l.EnvFile()
	}
	if name == "" {
		return nil, nil
	}
	k, err := ParseKind(name)
	if err != nil {
		return nil, fmt.Errorf("%s from %s: %w", LayoutVar, source, err)
	}
	return k, nil
}

// SyncTargets lists the memory files a memory sync updates with what it
// read, in the order the agent should visit them: the always-injected file
// that holds the working state, the reference files of the layout, then
// today's session log.
func (l Layout) SyncTargets() []string {
	k := l.Kind()
	files := []string{filepath.Join(l.MemoryDir(), k.stateFile)}
	for _, name := range k.syncRefs {
		files = append(files, filepath.Join(l.ReferenceDir(), name))
	}
	return append(files, l.CurrentSession())
}

// Kind is the home's layout (Detect without the found flag), or the one
// Pinned kept.
func (l Layout) Kind() *Kind {
	if l.kind != nil {
		return l.kind
	}
	k, _ := l.Detect()
	return k
}

// SyncThresholdVar overrides a layout's sync threshold, for the hooks,
// `c4 session-init`, `c4 threshold-check`, the doctor and memory_status
// alike.
const SyncThresholdVar = "C4_SYNC_THRESHOLD"

// SyncThresholdIn is the sync threshold an environment sets: SyncThresholdVar
// when it is a plain decimal count (the one form every reader of it takes
// the same way), else k's own. A value set to anything else is also
// answered as an error, for a command to refuse or a check to report; a
// hook ignores it, as it must not fail on its configuration.
func (k *Kind) SyncThresholdIn(lookupEnv func(string) (string, bool)) (int, error) {
	v, ok := lookupEnv(SyncThresholdVar)
	if !ok {
		return k.SyncThreshold, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || strconv.Itoa(n) != v {
		return k.SyncThreshold, fmt.Errorf("%s=%q is not a plain count", SyncThresholdVar, v)
	}
	return n, nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
