package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
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
	if cur, err := regfile.ReadFile(abs); err == nil && bytes.Equal(cur, data) {
		return fmt.Sprintf("memory/%s is already as at %s; nothing changed", rel, short(rev)), nil
	}
	if _, err := j.Commit(ctx, Change{Source: FromExternal}); err != nil && !errors.Is(err, ErrBusy) {
		return "", err
	}
	if write == nil {
		write = writeFile
	}
	if err := write(abs, data, "restored from "+short(rev)); err != nil {
		return "", err
	}
	c.Summary = fmt.Sprintf("memory/%s as at %s", rel, short(rev))
	res, err := j.Commit(ctx, c)
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

// Undo reverts every change session made, keeping every later change by
// others. Where a clean revert is not possible it changes nothing and
// says which files and lines are in the way.
func (j *Journal) Undo(ctx context.Context, c Change, session string, loc *time.Location) ([]string, error) {
	entries, err := j.History(ctx, Query{Session: session})
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%w %q", ErrUnknownSession, session)
	}
	if _, err := j.Commit(ctx, Change{Source: FromExternal}); err != nil && !errors.Is(err, ErrBusy) {
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
	out, err := j.git(ctx, nil, "diff-tree", "-r", "--no-renames", "--name-status", "-z", "HEAD", tree)
	if err != nil {
		return nil, err
	}
	files := parseNameStatus(out)
	if len(files) == 0 {
		return []string{fmt.Sprintf("the %d changes of session %s are undone already; nothing changed", len(entries), session)}, nil
	}
	var lines []string
	if err := j.revertFiles(ctx, tree, files, "undone: session "+session, func(msg string) {
		lines = append(lines, "warning: "+msg)
	}); err != nil {
		return nil, err
	}
	c.Summary = fmt.Sprintf("the %d %s of session %s", len(entries), plural(len(entries), "change", "changes"), session)
	for _, e := range entries {
		lines = append(lines, "reverted "+e.Line(loc))
	}
	res, err := j.Commit(ctx, c)
	switch {
	case err != nil:
		lines = append(lines, "undid "+c.Summary+" (not yet in the journal: "+err.Error()+")")
	case res != nil:
		lines = append(lines, fmt.Sprintf("undid %s (%s): %s", c.Summary, short(res.Rev), Describe(res.Files)))
	}
	return lines, nil
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
	_, err := bridge.Ingest(bridge.Home{Layout: j.layout, Now: now, Warn: warn, Reason: why}, false)
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
	if _, err := run(nil, "read-tree", "HEAD"); err != nil {
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
		return "", fmt.Errorf("cannot undo cleanly; nothing changed. Later changes are in the way of: %s", strings.Join(blocked, " | "))
	}
	out, err := run(nil, "write-tree")
	return strings.TrimSpace(out), err
}

// gitIndex is git with an index file of its own.
func (j *Journal) gitIndex(ctx context.Context, index string, stdin []byte, args ...string) (string, error) {
	return j.gitWith(ctx, []string{"GIT_INDEX_FILE=" + index}, stdin, args...)
}
