package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// A change that cannot be committed when it is made (a repository another
// program holds, a full disk, a failed write) keeps its author while it
// waits: it is queued, with its attribution and its paths, and committed
// as its own commit, in order, before any other commit, never folded into
// whoever commits next. What is committed is the paths' content at that
// later moment.

const (
	queueFile    = "journal-queue"          // one JSON line a waiting change
	drainingFile = "journal-queue.draining" // the queue being committed
	blockedFile  = "journal-blocked"        // since when and why commits wait
)

// queued is one waiting change.
type queued struct {
	Change Change    `json:"change"`
	Paths  []string  `json:"paths"`
	At     time.Time `json:"at"`
	Why    string    `json:"why"`
	// Blobs are the paths' contents when the change was made, as "MODE
	// HASH" ("" for a file gone); each blob is written to the repository
	// when it can be, so that a later change of the file is not taken
	// for this one.
	Blobs map[string]string `json:"blobs,omitempty"`
}

// enqueue keeps c waiting, with its paths and their contents. One line
// appended with O_APPEND: writers that race each other each keep their
// line, with or without the journal lock.
func (j *Journal) enqueue(c Change, paths []string, why error) error {
	q := queued{Change: c, Paths: paths, At: j.now(), Why: why.Error(), Blobs: map[string]string{}}
	if files, err := readWorktree(j.dir, paths); err == nil {
		e := openEngine(j.gitDir)
		for _, f := range files {
			if f.gone {
				q.Blobs[f.path] = ""
				continue
			}
			h, err := e.writeBlob(f.data) // fails on a full disk: the hash still tells
			if err != nil {
				h = plumbing.ComputeHash(plumbing.BlobObject, f.data)
			}
			q.Blobs[f.path] = fmt.Sprintf("%o %s", uint32(f.mode), h)
		}
	}
	line, err := json.Marshal(q)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(j.state, 0o700); err != nil {
		return err
	}
	return appendFile(filepath.Join(j.state, queueFile), append(line, '\n'), 0o600)
}

// readQueue reads the waiting changes of one queue file.
func readQueue(path string) ([]queued, error) {
	data, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []queued
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var q queued
		if json.Unmarshal(sc.Bytes(), &q) == nil {
			out = append(out, q)
		}
	}
	return out, sc.Err()
}

// drain commits the waiting changes, oldest first, each as its own
// commit: the queue is first renamed aside, so that a change queued
// meanwhile starts a new queue and is never lost. It runs under the
// journal lock, with the stamp ok; on a failure the rest waits.
func (j *Journal) drain(old, cur stamp) (stamp, error) {
	draining := filepath.Join(j.state, drainingFile)
	for {
		if _, err := os.Lstat(draining); errors.Is(err, os.ErrNotExist) {
			if err := os.Rename(filepath.Join(j.state, queueFile), draining); err != nil {
				return old, nil // nothing waits
			}
		}
		waiting, err := readQueue(draining)
		if err != nil {
			return old, err
		}
		for i, q := range waiting {
			if err := j.commitQueued(q, old, cur); err != nil {
				j.requeue(waiting[i:])
				return old, err
			}
			old, _ = j.loadStamp()
		}
		os.Remove(draining)
	}
}

// commitQueued commits a waiting change: each path with the content it
// had when the change was made, where that blob is kept, else as it is
// now. A path whose file has changed since stays pending for the next
// commit.
func (j *Journal) commitQueued(q queued, old, cur stamp) error {
	files, err := readWorktree(j.dir, q.Paths)
	if err != nil {
		return err
	}
	e := openEngine(j.gitDir)
	moved := map[string]bool{}
	for i, f := range files {
		kept, ok := q.Blobs[f.path]
		if !ok {
			continue
		}
		if kept == "" {
			if !f.gone {
				files[i], moved[f.path] = worktreeFile{path: f.path, gone: true}, true
			}
			continue
		}
		var mode uint32
		var hash string
		if _, err := fmt.Sscanf(kept, "%o %s", &mode, &hash); err != nil {
			continue
		}
		h := plumbing.NewHash(hash)
		if !f.gone && plumbing.ComputeHash(plumbing.BlobObject, f.data) == h {
			continue
		}
		if data := e.blob(h); data != nil {
			files[i], moved[f.path] = worktreeFile{path: f.path, data: data, mode: filemode.FileMode(mode)}, true
		}
	}
	sel := selection{only: slices.DeleteFunc(slices.Clone(q.Paths), func(p string) bool { return moved[p] })}
	_, err = j.commitFiles(q.Change, files, func() { j.saveStamp(sel.merge(old, cur)) })
	return err
}

// requeue puts back, in front of what was queued meanwhile, the changes
// a drain could not commit.
func (j *Journal) requeue(rest []queued) {
	draining := filepath.Join(j.state, drainingFile)
	var b bytes.Buffer
	for _, q := range rest {
		line, _ := json.Marshal(q)
		b.Write(append(line, '\n'))
	}
	writeState(draining, b.Bytes())
}

// Waiting is what the queue holds: how many changes, the oldest, and why
// it waits.
type Waiting struct {
	Count  int
	Oldest time.Time
	Why    string
}

// waiting reads the queue.
func (j *Journal) waiting() Waiting {
	var w Waiting
	for _, name := range []string{drainingFile, queueFile} {
		qs, _ := readQueue(filepath.Join(j.state, name))
		for _, q := range qs {
			if w.Count == 0 || q.At.Before(w.Oldest) {
				w.Oldest, w.Why = q.At, q.Why
			}
			w.Count++
		}
	}
	return w
}

// blocked records, the first time in a row, that a commit had to wait and
// why; a commit that goes through clears it.
func (j *Journal) blocked(err error) {
	path := filepath.Join(j.state, blockedFile)
	if err == nil {
		os.Remove(path)
		return
	}
	if _, serr := os.Lstat(path); serr == nil {
		return
	}
	os.MkdirAll(j.state, 0o700)
	writeState(path, []byte(j.now().UTC().Format(time.RFC3339)+" "+oneLine(err.Error())+"\n"))
}

// blockedSince says since when and by what commits have been held up, ""
// when they are not.
func (j *Journal) blockedSince() string {
	data, err := regfile.ReadFile(filepath.Join(j.state, blockedFile))
	if err != nil {
		return ""
	}
	when, why, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
	if t, err := time.Parse(time.RFC3339, when); err == nil {
		return fmt.Sprintf("since %s: %s", t.Format("2006-01-02 15:04:05 MST"), why)
	}
	return why
}
