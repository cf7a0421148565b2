package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/realpath"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/bridge"
)

// Restorer writes a restored file; the bridge and the records layer give
// their own, so that records follow a restored reference file and a
// restored record goes through a records write. why is the change-log
// summary of the records it changes. nil writes the file.
type Restorer func(abs string, data []byte, why string) error

// Restore puts memory/path back as it was at rev, as a new change of the
// command named cmd. It answers what it did, in one line.
func (j *Journal) Restore(ctx context.Context, c Change, rel, rev string, write Restorer) (string, error) {
	data, err := j.Version(ctx, rev, rel)
	if err != nil {
		return "", err
	}
	abs := filepath.Join(j.dir, filepath.FromSlash(rel))
	if !realpath.Confined(j.dir, abs) {
		return "", fmt.Errorf("memory/%s leads out of memory/ through a symlink; nothing restored", rel)
	}
	if cur, err := regfile.ReadFile(abs); err == nil && bytes.Equal(cur, data) {
		return fmt.Sprintf("memory/%s is already as at %s; nothing changed", rel, short(rev)), nil
	}
	if _, err := j.CommitOutside(ctx); err != nil && !errors.Is(err, ErrBusy) {
		return "", err
	}
	if err := j.keptAll(ctx, []string{rel}, "restored"); err != nil {
		return "", err
	}
	if write == nil {
		write = writeFile
	}
	mark := j.Mark()
	if err := write(abs, data, "restored from "+short(rev)); err != nil {
		return "", err
	}
	c.Summary = fmt.Sprintf("memory/%s as at %s", rel, short(rev))
	res, err := j.commitOwn(ctx, c, mark)
	if err != nil {
		return "restored " + c.Summary + " (not yet in the journal: " + err.Error() + ")", nil
	}
	if res == nil {
		return "restored " + c.Summary, nil
	}
	return fmt.Sprintf("restored %s (%s)", c.Summary, short(res.Rev)), nil
}

func writeFile(abs string, data []byte, _ string) error {
	perm := os.FileMode(0o644)
	if info, err := os.Stat(abs); err == nil {
		perm = info.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(abs, data, perm)
}

// ErrUnknownSession is an undo of a session the journal has no change of.
var ErrUnknownSession = errors.New("the memory journal has no change of session")

// ErrNoSession is an undo given an empty or blank session id: what
// `--session "$CLAUDE_CODE_SESSION_ID"` becomes when the variable is unset.
// It selects no session, never every change.
var ErrNoSession = errors.New("no session given (an empty or blank session id selects nothing; see history for session ids)")

// ErrUndone is an undo of a session whose changes are all undone already.
var ErrUndone = errors.New("is undone already")

// UndoPlan is what undoing a session would do, worked out without
// changing anything.
type UndoPlan struct {
	Session string
	Entries []Entry      // the session's changes since its last undo, newest first
	Files   []FileChange // what the undo changes in the memory
	tree    string       // the memory as it is with the session's changes reverted
}

// Lines says what the plan would do, one line a change and a file.
func (p *UndoPlan) Lines(loc *time.Location) []string {
	var lines []string
	for _, e := range p.Entries {
		lines = append(lines, "would revert "+e.Line(loc))
	}
	for _, f := range p.Files {
		lines = append(lines, fmt.Sprintf("would %s memory/%s", verb(f.Status), f.Path))
	}
	return lines
}

// PlanUndo works out the undo of session's changes: every change the
// journal attributes to it since its last undo, reverted newest first on
// the memory as it is now. It refuses a blank session, a session with no
// change, a session undone already, an undo that later changes are in the
// way of, and one that would delete a file the session did not create.
func (j *Journal) PlanUndo(ctx context.Context, session string) (*UndoPlan, error) {
	entries, err := j.undoEntries(ctx, session)
	if err != nil {
		return nil, err
	}
	release, err := j.lock(j.LockWait)
	if err != nil {
		return nil, err
	}
	tree, err := j.revertTree(ctx, entries)
	release()
	if err != nil {
		return nil, err
	}
	out, err := j.git(ctx, nil, "diff-tree", "-r", "--no-renames", "--name-status", "-z", j.head(), tree)
	if err != nil {
		return nil, err
	}
	plan := &UndoPlan{Session: session, Entries: entries, Files: parseNameStatus(out), tree: tree}
	if err := j.checkDeletes(ctx, plan); err != nil {
		return nil, err
	}
	return plan, nil
}

// undoEntries are the changes of session an undo reverts: every one since
// its last undo. A blank session, one with no change and one undone
// already are refused.
func (j *Journal) undoEntries(ctx context.Context, session string) ([]Entry, error) {
	if strings.TrimSpace(session) == "" {
		return nil, ErrNoSession
	}
	if err := j.readable(); err != nil {
		return nil, err
	}
	q := Query{Session: session}
	undone, err := j.History(ctx, Query{Undone: session, Limit: 1, Detail: Bare})
	if err != nil {
		return nil, err
	}
	if len(undone) == 1 {
		q.After = undone[0].Rev
	}
	entries, err := j.History(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		if len(undone) == 1 {
			return nil, fmt.Errorf("session %q %w (%s); nothing changed", session, ErrUndone, short(undone[0].Rev))
		}
		return nil, fmt.Errorf("%w %q; nothing changed", ErrUnknownSession, session)
	}
	return entries, nil
}

// checkDeletes refuses a plan that deletes a file none of the session's
// changes created: deleting is only ever taking back the session's own.
func (j *Journal) checkDeletes(ctx context.Context, p *UndoPlan) error {
	var deletes []string
	for _, f := range p.Files {
		if f.Status == 'D' {
			deletes = append(deletes, f.Path)
		}
	}
	if len(deletes) == 0 {
		return nil
	}
	args := []string{"log", "--no-walk=unsorted", "--no-renames", "--root", "--diff-filter=A", "--name-only", "-z", "--format="}
	for _, e := range p.Entries {
		args = append(args, e.Rev)
	}
	out, err := j.git(ctx, nil, args...)
	if err != nil {
		return err
	}
	created := map[string]bool{}
	for _, path := range strings.Split(out, "\x00") {
		created[strings.TrimSpace(path)] = true
	}
	var foreign []string
	for _, d := range deletes {
		if !created[d] {
			foreign = append(foreign, "memory/"+d)
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("cannot undo session %q: it would delete %s, which the session did not create; nothing changed", p.Session, strings.Join(foreign, ", "))
	}
	return nil
}

// Undo reverts every change session made since its last undo, keeping
// every later change by others, as one change c. Where a clean revert is
// not possible it changes nothing and says which files and lines are in
// the way (see PlanUndo for every refusal).
func (j *Journal) Undo(ctx context.Context, c Change, session string, loc *time.Location) ([]string, error) {
	if _, err := j.undoEntries(ctx, session); err != nil {
		return nil, err // refused before anything is committed
	}
	if _, err := j.CommitOutside(ctx); err != nil && !errors.Is(err, ErrBusy) {
		return nil, err
	}
	plan, err := j.PlanUndo(ctx, session)
	if err != nil {
		return nil, err
	}
	n := len(plan.Entries)
	c.Summary = fmt.Sprintf("the %d %s of session %s", n, plural(n, "change", "changes"), session)
	c.Undoes = session
	if len(plan.Files) == 0 {
		return nil, fmt.Errorf("session %q %w (its %d %s are reverted in the memory as it is); nothing changed", session, ErrUndone, n, plural(n, "change is", "changes are"))
	}
	var paths []string
	for _, f := range plan.Files {
		paths = append(paths, f.Path)
	}
	if err := j.keptAll(ctx, paths, "undone"); err != nil {
		return nil, err
	}
	var lines []string
	mark := j.Mark()
	if err := j.revertFiles(ctx, plan.tree, plan.Files, "undone: session "+session, func(msg string) {
		lines = append(lines, "warning: "+msg)
	}); err != nil {
		return nil, err
	}
	for _, e := range plan.Entries {
		lines = append(lines, "reverted "+e.Line(loc))
	}
	res, err := j.commitOwn(ctx, c, mark)
	switch {
	case err != nil:
		lines = append(lines, "undid "+c.Summary+" (not yet in the journal: "+err.Error()+")")
	case res != nil:
		lines = append(lines, fmt.Sprintf("undid %s (%s): %s", c.Summary, short(res.Rev), Describe(res.Files)))
	}
	return lines, nil
}

// keptAll refuses, naming them, the paths whose content in memory/ is not
// the journal's yet (a running tool call's, or an edit the journal could
// not commit): writing over them would lose it for good.
func (j *Journal) keptAll(ctx context.Context, paths []string, what string) error {
	changed, all := j.ChangedPaths()
	var check []string
	for _, p := range paths {
		if all || slices.Contains(changed, p) {
			check = append(check, p)
		}
	}
	if len(check) == 0 {
		return nil
	}
	differ, err := openEngine(j.gitDir).differs(plumbing.NewHash(j.head()), j.dir, check)
	if err != nil {
		return err
	}
	if len(differ) > 0 {
		return fmt.Errorf("memory/%s %s changes the journal does not have yet (a tool call at work, or a commit that waits); nothing %s, try again",
			strings.Join(differ, ", memory/"), plural(len(differ), "has", "have"), what)
	}
	return nil
}

// commitOwn commits, as c, what changed since mark: a command's own
// change, and nothing another writer made before it.
func (j *Journal) commitOwn(ctx context.Context, c Change, mark Mark) (*Committed, error) {
	if mark.st == nil {
		return j.Commit(ctx, c)
	}
	paths := j.ChangedSince(mark)
	if len(paths) == 0 {
		return nil, nil
	}
	return j.commitSelected(ctx, c, selection{only: paths})
}

// revertFiles writes the memory as tree has it, for the files an undo
// changes. A record keeps its change log and gets why appended (records
// are written through the records layer); a record the undone changes
// created is not deleted but retired by the bridge once its entry is gone
// from the reference file reverted with it; the reference files are
// ingested once, so that their records follow.
func (j *Journal) revertFiles(ctx context.Context, tree string, files []FileChange, why string, warn func(string)) error {
	now := j.now()
	var ingest bool
	for _, f := range files {
		if !realpath.Confined(j.dir, filepath.Join(j.dir, filepath.FromSlash(f.Path))) {
			return fmt.Errorf("memory/%s leads out of memory/ through a symlink; nothing changed", f.Path)
		}
	}
	for _, f := range files {
		abs := filepath.Join(j.dir, filepath.FromSlash(f.Path))
		kind := j.kindOf(f.Path)
		if f.Status == 'D' {
			if kind == recordFile {
				continue // retired by the ingest below, never deleted
			}
			if err := os.Remove(abs); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			ingest = ingest || kind == referenceFile
			continue
		}
		data, err := j.git(ctx, nil, "cat-file", "blob", tree+":"+f.Path)
		if err != nil {
			return err
		}
		write := writeFile
		if kind == recordFile && f.Status == 'M' {
			write = j.Restorer(f.Path, now, warn)
		}
		if err := write(abs, []byte(data), why); err != nil {
			return err
		}
		ingest = ingest || kind == referenceFile
	}
	if !ingest {
		return nil
	}
	_, err := bridge.Ingest(bridge.Memory{Layout: j.layout, Now: now, Warn: warn, Reason: why}, false)
	return err
}

// revertTree applies the reverse of each entry, newest first, to HEAD's
// tree in an index of its own, and answers the tree that results. The
// work tree and the journal's index are not touched.
func (j *Journal) revertTree(ctx context.Context, entries []Entry) (string, error) {
	index := filepath.Join(j.state, "journal-undo-index")
	defer os.Remove(index)
	os.Remove(index)
	run := func(stdin []byte, args ...string) (string, error) {
		return j.gitIndex(ctx, index, stdin, args...)
	}
	if _, err := run(nil, "read-tree", j.head()); err != nil {
		return "", err
	}
	var blocked []string
	for _, e := range entries {
		patch, err := j.git(ctx, nil, "diff-tree", "-p", "--binary", "--full-index", "--no-renames", "--root", e.Rev)
		if err != nil {
			return "", err
		}
		// diff-tree prints the commit id first.
		if i := strings.Index(patch, "\ndiff --git "); i >= 0 {
			patch = patch[i+1:]
		} else {
			continue
		}
		if _, err := run([]byte(patch), "apply", "--cached", "-R", "--recount"); err != nil {
			var ge *GitError
			msg := err.Error()
			if errors.As(err, &ge) {
				msg = ge.Stderr
			}
			blocked = append(blocked, fmt.Sprintf("%s (%s): %s", short(e.Rev), e.Summary, strings.ReplaceAll(strings.TrimSpace(msg), "\n", "; ")))
		}
	}
	if len(blocked) > 0 {
		more := ""
		if len(blocked) > shownBlocked {
			more = fmt.Sprintf(" | and %d more", len(blocked)-shownBlocked)
			blocked = blocked[:shownBlocked]
		}
		return "", fmt.Errorf("cannot undo cleanly; nothing changed. Later changes are in the way of: %s%s", strings.Join(blocked, " | "), more)
	}
	out, err := run(nil, "write-tree")
	return strings.TrimSpace(out), err
}

// shownBlocked is how many blocked changes an undo's refusal names: one
// line a person reads, not every conflict of a long session.
const shownBlocked = 3

// gitIndex is git with an index file of its own.
func (j *Journal) gitIndex(ctx context.Context, index string, stdin []byte, args ...string) (string, error) {
	return j.gitWith(ctx, []string{"GIT_INDEX_FILE=" + index}, stdin, args...)
}
