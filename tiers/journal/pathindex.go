package journal

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// The path index answers which changes touched a file without walking the
// journal: git log -- PATH reads every commit (its commit-graph's
// changed-path filters only make each read cheaper), so the history of a
// file changed once, 100,000 commits ago, took 100 ms. The index is one
// line a changed path a commit, in commit order, appended as the journal
// commits; the changes made some other way (git's own commit, a commit
// of the user's) are taken in from git by the service, with the
// commit-graph, and by the commands. A read never writes it: the changes
// it lacks are asked of git, which walks only those.

const (
	pathIndexFile = "zylos-journal-paths"     // REV<TAB>"PATH" lines, oldest first
	pathIndexTip  = "zylos-journal-paths-tip" // the commit the index is whole up to
)

// indexCommit appends a commit's paths to the index, when the index is
// whole up to its parent (else the next read takes it in from git).
func (j *Journal) indexCommit(parent, rev string, files []FileChange) {
	if j.indexedTip() != parent || parent == "" {
		return
	}
	var b bytes.Buffer
	for _, f := range files {
		fmt.Fprintf(&b, "%s\t%s\n", rev, strconv.Quote(f.Path))
	}
	if appendFile(filepath.Join(j.gitDir, pathIndexFile), b.Bytes(), 0o644) == nil {
		writeState(filepath.Join(j.gitDir, pathIndexTip), []byte(rev+"\n"))
	}
}

func (j *Journal) indexedTip() string {
	data, err := regfile.ReadFile(filepath.Join(j.gitDir, pathIndexTip))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// catchUp takes into the index the commits of the branch it lacks, from
// git: those after its tip, or, when whole is allowed, all of them when
// there is no index or its tip is not on the branch (a history that
// changed): a walk of the whole journal, which the service makes. The
// caller holds the journal lock.
func (j *Journal) catchUp(ctx context.Context, allowWhole bool) error {
	head := j.head()
	tip := j.indexedTip()
	if head == "" || tip == head || (tip == "" && !allowWhole) {
		return nil
	}
	args := []string{"log", "--reverse", "--no-renames", "--root", "--name-only", "-z", "--format=%x1e%H", head}
	whole := tip == ""
	if !whole {
		if _, err := j.git(ctx, nil, "merge-base", "--is-ancestor", tip, head); err != nil {
			if !allowWhole {
				return nil
			}
			whole = true
		} else {
			args = append(args, "^"+tip)
		}
	}
	out, err := j.git(ctx, nil, args...)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	// -z: "\x1eREV\x00\nPATH\x00PATH\x00" a commit.
	for _, rec := range strings.Split(out, "\x1e") {
		rev, names, ok := strings.Cut(rec, "\x00")
		if !ok || len(rev) != 40 {
			continue
		}
		for _, p := range strings.Split(strings.TrimPrefix(names, "\n"), "\x00") {
			if p != "" {
				fmt.Fprintf(&b, "%s\t%s\n", rev, strconv.Quote(p))
			}
		}
	}
	index := filepath.Join(j.gitDir, pathIndexFile)
	if whole {
		err = writeState(index, b.Bytes())
	} else {
		err = appendFile(index, b.Bytes(), 0o644)
	}
	if err != nil {
		return err
	}
	return writeState(filepath.Join(j.gitDir, pathIndexTip), []byte(head+"\n"))
}

// revsOf lists the changes that touched path, newest first, by the
// index and, for the changes the index lacks, git; at most limit of them
// when limit > 0. ok is false when the index cannot say (then git walks the
// whole journal).
func (j *Journal) revsOf(ctx context.Context, path string, limit int) (revs []string, ok bool) {
	tip, head := j.indexedTip(), j.head()
	if tip == "" || head == "" {
		return nil, false
	}
	if tip != head {
		// An index of a history that changed since (a reset, a rewrite)
		// lists changes no longer on the branch: git walks.
		if _, err := j.git(ctx, nil, "merge-base", "--is-ancestor", tip, head); err != nil {
			return nil, false
		}
		out, err := j.git(ctx, nil, "log", "--format=%H", "--no-renames", head, "^"+tip, "--", ":(literal)"+path)
		if err != nil {
			return nil, false
		}
		revs = strings.Fields(out)
	}
	f, err := regfile.Open(filepath.Join(j.gitDir, pathIndexFile))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	want := []byte("\t" + strconv.Quote(path))
	// Read from the end, newest first, a block at a time: the newest
	// changes of a busy file are near the end.
	info, err := f.Stat()
	if err != nil {
		return nil, false
	}
	const block = 64 << 10
	var carry []byte
	for end := info.Size(); end > 0 && (limit <= 0 || len(revs) < limit); {
		start := max(0, end-block)
		buf := make([]byte, end-start, end-start+int64(len(carry)))
		if _, err := f.ReadAt(buf, start); err != nil {
			return nil, false
		}
		buf = append(buf, carry...)
		lines := bytes.Split(buf, []byte("\n"))
		if start > 0 {
			carry, lines = lines[0], lines[1:] // a line cut by the block's start
		} else {
			carry = nil
		}
		for i := len(lines) - 1; i >= 0 && (limit <= 0 || len(revs) < limit); i-- {
			if line := lines[i]; len(line) == 40+len(want) && bytes.HasSuffix(line, want) {
				revs = append(revs, string(line[:40]))
			}
		}
		end = start
	}
	return revs, true
}
