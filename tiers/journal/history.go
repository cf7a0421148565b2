package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/lazy"
	"github.com/zylos/zylos-memory/internal/realpath"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/entries"
)

// shortLen is how many hex digits a revision is shown with: enough to be
// unambiguous over hundreds of thousands of commits.
const shortLen = 10

// Entry is one change in the journal.
type Entry struct {
	Rev     string    `json:"rev"`
	Time    time.Time `json:"time"`
	Source  string    `json:"source"`
	Session string    `json:"session,omitempty"`
	Tool    string    `json:"tool,omitempty"`
	Command string    `json:"command,omitempty"`
	Summary string    `json:"summary"`
	Paths   []string  `json:"paths"`
	Added   int       `json:"added"`
	Removed int       `json:"removed"`
}

// Line is the entry as `history` prints it: short rev, local time, source
// and session, summary, +added -removed.
func (e Entry) Line(loc *time.Location) string {
	who := e.Source
	if who == "" {
		who = "-"
	}
	if e.Session != "" {
		who += " " + e.Session
	}
	return fmt.Sprintf("%s %s %s  %s  +%d -%d", short(e.Rev), e.Time.In(loc).Format("2006-01-02 15:04:05"), who, e.Summary, e.Added, e.Removed)
}

// Query selects entries of the history.
type Query struct {
	Path    string // relative to memory/; "" for every change
	Entry   string // a reference entry id in Path: only the changes to its text
	Session string
	Source  Source // "" for every source
	Rev     string // only this change; "" for the whole history
	After   string // only the changes made after this revision
	Undone  string // only the undos of this session
	Since   string // any time git understands
	Until   string
	Limit   int // 0: no limit
	Detail  Detail
}

// Detail is what History reads of the files each change touched.
type Detail int

const (
	Counts Detail = iota // paths, and the lines added and removed
	// Names is paths only, no diff computed; in a list (no Rev), none for
	// the first change, which holds the whole memory: listing thousands
	// of paths costs a page of changes tens of milliseconds.
	Names
	Bare // nothing: the cheapest, for a long span
)

// ErrNoHistory is a home whose journal has no commit yet.
var ErrNoHistory = errors.New("the memory journal has no history yet")

const logFormat = "%x1e%H%x1f%at%x1f%s%x1f%(trailers:key=Zylos-Source,valueonly,separator=%x2C)%x1f%(trailers:key=Zylos-Session,valueonly,separator=%x2C)%x1f%(trailers:key=Zylos-Tool,valueonly,separator=%x2C)%x1f%(trailers:key=Zylos-Command,valueonly,separator=%x2C)%x1f"

// History lists the changes q selects, newest first.
func (j *Journal) History(ctx context.Context, q Query) ([]Entry, error) {
	if err := j.readable(); err != nil {
		return nil, err
	}
	if q.Entry != "" {
		return j.entryHistory(ctx, q)
	}
	args := []string{"log", "--no-color", "--no-renames", "--format=" + logFormat}
	var env []string
	switch q.Detail {
	case Counts:
		args = append(args, "--numstat", "--root")
	case Names:
		args = append(args, "--name-only")
		if q.Rev == "" {
			env = []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=log.showRoot", "GIT_CONFIG_VALUE_0=false"}
		} else {
			args = append(args, "--root")
		}
	}
	from, _ := j.branchRef()
	if q.Rev != "" {
		if err := checkRev(q.Rev); err != nil {
			return nil, err
		}
		from, q.Limit = q.Rev, 1
	}
	if q.Limit > 0 {
		args = append(args, "-n", strconv.Itoa(q.Limit))
	}
	for _, t := range [][2]string{{"since", q.Since}, {"until", q.Until}} {
		if t[1] == "" {
			continue
		}
		if !isTime(t[1]) {
			return nil, fmt.Errorf("--%s %q: not a time (2026-05-01, 2026-05-01 14:00, RFC 3339, yesterday, 2 hours ago)", t[0], t[1])
		}
		args = append(args, "--"+t[0]+"="+t[1])
	}
	var greps int
	for _, t := range [][2]string{{trailerSession, q.Session}, {trailerSource, string(q.Source)}, {trailerUndo, q.Undone}} {
		if t[1] != "" {
			args = append(args, "-E", "--grep=^"+t[0]+": "+regexp.QuoteMeta(t[1])+"$")
			greps++
		}
	}
	if greps > 1 { // both trailers, not either
		args = append(args, "--all-match")
	}
	var stdin []byte
	if revs, ok := j.pathRevs(ctx, q); ok {
		// The changes of the file, from the path index: git shows them
		// without walking the journal.
		stdin = []byte(strings.Join(revs, "\n") + "\n")
		args = append(args, "--no-walk=unsorted", "--stdin")
	} else {
		args = append(args, "--end-of-options", from)
		if q.After != "" {
			args = append(args, "^"+q.After)
		}
	}
	args = append(args, "--")
	if q.Path != "" {
		args = append(args, ":(literal)"+q.Path)
	}
	out, err := j.gitWith(ctx, env, stdin, args...)
	if err != nil {
		if q.Rev != "" {
			return nil, fmt.Errorf("%q is not a revision of the memory journal (see `history`)", q.Rev)
		}
		return nil, err
	}
	return parseLog(out), nil
}

// pathRevs are the changes of q's file by the path index, newest first,
// when q asks for one file's history on the branch and the index knows
// the file; ok is false otherwise.
func (j *Journal) pathRevs(ctx context.Context, q Query) (revs []string, ok bool) {
	if q.Path == "" || q.Rev != "" || q.After != "" {
		return nil, false
	}
	max := 0
	if q.Session == "" && q.Source == "" && q.Undone == "" && q.Since == "" && q.Until == "" {
		max = q.Limit // git reads every commit it is given: only those shown
	}
	revs, ok = j.revsOf(ctx, q.Path, max)
	if !ok || len(revs) == 0 {
		return nil, false // a directory, or a file the index never saw: git walks
	}
	return revs, true
}

func parseLog(out string) []Entry {
	var entries []Entry
	for _, rec := range strings.Split(out, "\x1e") {
		f := strings.Split(rec, "\x1f")
		if len(f) < 8 {
			continue
		}
		secs, _ := strconv.ParseInt(f[1], 10, 64)
		e := Entry{Rev: f[0], Time: time.Unix(secs, 0), Summary: f[2], Source: f[3], Session: f[4], Tool: f[5], Command: f[6], Paths: []string{}}
		for _, line := range strings.Split(f[7], "\n") {
			if line == "" {
				continue
			}
			nums := strings.SplitN(line, "\t", 3)
			if len(nums) != 3 { // --name-only: the path alone
				e.Paths = append(e.Paths, line)
				continue
			}
			a, _ := strconv.Atoi(nums[0]) // "-" for a binary file counts 0
			r, _ := strconv.Atoi(nums[1])
			e.Added += a
			e.Removed += r
			e.Paths = append(e.Paths, nums[2])
		}
		entries = append(entries, e)
	}
	return entries
}

// readable says why the journal cannot be read: no repository, or one the
// journal does not use.
func (j *Journal) readable() error {
	exists, err := j.checkRepo()
	if err != nil {
		return err
	}
	if !exists || j.head() == "" {
		return ErrNoHistory
	}
	return nil
}

// Show is the change rev made, as a diff (limited to path when given).
func (j *Journal) Show(ctx context.Context, rev, path string) (string, error) {
	full, err := j.resolveRev(ctx, rev)
	if err != nil {
		return "", err
	}
	args := []string{"show", "--no-color", "--no-ext-diff", "--format=fuller", full, "--"}
	if path != "" {
		args = append(args, ":(literal)"+path)
	}
	return j.git(ctx, nil, args...)
}

// Version is the content of path as rev had it.
func (j *Journal) Version(ctx context.Context, rev, path string) ([]byte, error) {
	full, err := j.resolveRev(ctx, rev)
	if err != nil {
		return nil, err
	}
	out, err := j.git(ctx, nil, "cat-file", "blob", full+":"+path)
	if err != nil {
		return nil, fmt.Errorf("memory/%s did not exist at %s", path, short(full))
	}
	return []byte(out), nil
}

// resolveRev turns a revision a user typed into a commit of the journal.
func (j *Journal) resolveRev(ctx context.Context, rev string) (string, error) {
	if err := j.readableRev(rev); err != nil {
		return "", err
	}
	out, err := j.git(ctx, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q is not a revision of the memory journal (see `history`)", rev)
	}
	return strings.TrimSpace(out), nil
}

// At resolves a revision or a time (the last commit at or before it) to
// a commit of the journal.
func (j *Journal) At(ctx context.Context, at string, loc *time.Location) (string, error) {
	if t, ok := parseTime(at, loc); ok {
		if err := j.readable(); err != nil {
			return "", err
		}
		out, err := j.git(ctx, nil, "rev-list", "-1", "--before="+strconv.FormatInt(t.Unix(), 10), j.head())
		if err != nil {
			return "", err
		}
		if rev := strings.TrimSpace(out); rev != "" {
			return rev, nil
		}
		return "", fmt.Errorf("the memory journal has no version at or before %s", t.In(loc).Format(time.RFC3339))
	}
	return j.resolveRev(ctx, at)
}

var timeLayouts = []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"}

// relativeTime is a time relative to now, in the forms git reads and
// says so in docs: `2 hours ago`, `yesterday`.
var relativeTime = lazy.Regexp(`^(?i)(now|today|yesterday|(\d+|an?|one) (second|minute|hour|day|week|month|year)s? ago)$`)

// isTime reports whether s is a time the journal's --since and --until
// take: an absolute time parseTime reads or a relative one. Git's own
// reading takes any text and makes some time of it (`yesterdy` is now),
// which would select the wrong changes in silence.
func isTime(s string) bool {
	s = strings.TrimSpace(s)
	if _, ok := parseTime(s, time.UTC); ok {
		return true
	}
	return relativeTime().MatchString(s)
}

func parseTime(s string, loc *time.Location) (time.Time, bool) {
	for _, layout := range timeLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// ErrOutside is a path that is not a memory file the journal keeps.
var ErrOutside = errors.New("is not a file of the memory the journal keeps")

// Rel turns a path a user typed (absolute, relative to the working
// directory or to the home, `memory/…` or relative to memory/) into a
// path relative to memory/. A record id or a reference entry id stands
// for its file.
func (j *Journal) Rel(arg, cwd string) (string, error) {
	rel, _, err := j.resolve(arg, cwd)
	return rel, err
}

// resolve is Rel, and whether arg named a record or an entry by its id.
func (j *Journal) resolve(arg, cwd string) (rel string, byID bool, err error) {
	if arg == "" {
		return "", false, fmt.Errorf("empty path")
	}
	var p string
	switch {
	case filepath.IsAbs(arg):
		p = arg
	case cwd != "" && exists(filepath.Join(cwd, arg)):
		p = filepath.Join(cwd, arg)
	case arg == "memory" || strings.HasPrefix(filepath.ToSlash(arg), "memory/"):
		p = filepath.Join(j.layout.ZylosDir, arg)
	default:
		p = filepath.Join(j.dir, arg)
	}
	rel, inside := j.inside(p)
	if inside && exists(p) {
		return rel, false, nil
	}
	if file := j.idFile(arg); file != "" {
		return file, true, nil
	}
	if inside {
		return rel, false, nil // a file gone from the memory
	}
	return "", false, fmt.Errorf("%s %w", arg, ErrOutside)
}

// inside is p relative to memory/, when p is a path the journal keeps;
// p and memory/ are compared as written and with their links followed,
// as the records guard and the reference ingest compare them.
func (j *Journal) inside(p string) (string, bool) {
	rel, ok := realpath.Within(j.dir, p)
	if !ok {
		return "", false
	}
	top, _, _ := strings.Cut(rel, "/")
	if top == ".git" || top == ".state" {
		return "", false
	}
	return rel, true
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// idFile finds the file of a record id or a reference entry id, "" when
// id names none.
func (j *Journal) idFile(id string) string {
	if strings.ContainsAny(id, "/\\.") {
		return "" // a path, not an id
	}
	if m, _ := filepath.Glob(filepath.Join(j.layout.RecordsDir(), "*", id+".json")); len(m) == 1 {
		rel, _ := j.inside(m[0])
		return rel
	}
	files, _ := filepath.Glob(filepath.Join(j.layout.ReferenceDir(), "*.md"))
	for _, f := range files {
		data, err := regfile.ReadFile(f)
		if err == nil && strings.Contains(string(data), entries.IDComment(id)) {
			rel, _ := j.inside(f)
			return rel
		}
	}
	return ""
}
