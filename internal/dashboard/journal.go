package dashboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/tiers"
)

// Journal is what the dashboard reads of the memory journal (memory/.git):
// the changes, one change's diff, and the size of each file at a change.
// gitJournal reads it with the stock git CLI; the journal package's own
// API can stand in for it behind this interface.
type Journal interface {
	// Available says whether the home has a journal, and if not why.
	Available() error
	Changes(ctx context.Context, f ChangeFilter) ([]Change, error)
	// Show is one change with its diff.
	Show(ctx context.Context, rev string) (Change, string, error)
	// Sizes are the file sizes (paths relative to memory/) at rev.
	Sizes(ctx context.Context, rev string) (map[string]int64, error)
	// RestoreDiff is what restoring file as at rev would change.
	RestoreDiff(ctx context.Context, rev, file string) (string, error)
}

// ChangeFilter selects changes; empty fields select all.
type ChangeFilter struct {
	Session, Source, File string // File is relative to memory/
	Limit                 int
	// NoFiles leaves out the files each change touched (cheaper).
	NoFiles bool
}

// Change is one journal commit and its provenance trailers.
type Change struct {
	Rev     string
	Time    time.Time
	Subject string
	Source  string // Zylos-Source
	Session string // Zylos-Session
	Tool    string // Zylos-Tool
	// Files are the first maxFiles files the change touched; MoreFiles
	// counts the rest.
	Files     []string
	MoreFiles int
}

// maxFiles bounds the files listed with a change: the first commit of a
// journal holds the whole memory.
const maxFiles = 20

// Short is the abbreviated revision.
func (c Change) Short() string { return c.Rev[:min(len(c.Rev), 10)] }

// ErrNoJournal reports a home without memory/.git.
var ErrNoJournal = errors.New("no journal yet (memory/.git not found)")

// gitJournal reads memory/.git with git itself.
type gitJournal struct {
	gitDir, workTree string
}

func newGitJournal(l tiers.Layout) *gitJournal {
	return &gitJournal{gitDir: filepath.Join(l.MemoryDir(), ".git"), workTree: l.MemoryDir()}
}

func (j *gitJournal) Available() error {
	st, err := os.Stat(j.gitDir)
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNoJournal
	}
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("journal: %s is not a directory", j.gitDir)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("journal: git is not installed: %w", err)
	}
	return nil
}

// maxGitOutput bounds what one git command may print to a page: the
// first commit of a journal, shown as a diff, holds the whole memory.
const maxGitOutput = 8 << 20

// git runs a read-only git command on the journal and returns at most
// maxGitOutput bytes of its output (cut tells); a command cut short is
// stopped.
func (j *gitJournal) git(ctx context.Context, args ...string) (out []byte, err error) {
	out, _, err = j.gitBounded(ctx, maxGitOutput, args...)
	return out, err
}

func (j *gitJournal) gitBounded(ctx context.Context, limit int64, args ...string) (out []byte, cut bool, err error) {
	if err := j.Available(); err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + j.gitDir, "--work-tree=" + j.workTree,
		"-c", "core.quotePath=false", "-c", "log.showRoot=false", "--no-pager"}, args...)...)
	// No optional locks: a reader must not write the index (git status
	// would refresh it) under a writer. log.showRoot=false: the first
	// commit creates the whole memory; listing its every file would cost
	// a large home's pages tens of milliseconds each.
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, fmt.Errorf("journal: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("journal: git: %w", err)
	}
	out, readErr := io.ReadAll(io.LimitReader(stdout, limit+1))
	if cut = int64(len(out)) > limit; cut {
		out = out[:limit]
		cancel() // the rest is not wanted
	}
	waitErr := cmd.Wait()
	if cut {
		return out, true, nil
	}
	if err := errors.Join(readErr, waitErr); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return nil, false, fmt.Errorf("journal: git %s: %v %s", args[0], err, msg)
	}
	return out, false, nil
}

// changeFormat prints one change per record: fields split by 0x1f, the
// names of the files it touched after the last field (--name-only).
const changeFormat = "--format=%x1e%H%x1f%ct%x1f%s%x1f" +
	"%(trailers:key=Zylos-Source,valueonly,separator=%x2c)%x1f" +
	"%(trailers:key=Zylos-Session,valueonly,separator=%x2c)%x1f" +
	"%(trailers:key=Zylos-Tool,valueonly,separator=%x2c)%x1f"

// scanLimit bounds the commits read to fill a filtered page.
const scanLimit = 5000

func (j *gitJournal) Changes(ctx context.Context, f ChangeFilter) ([]Change, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	args := []string{"log", changeFormat, "--no-renames"}
	if !f.NoFiles {
		args = append(args, "--name-only")
	}
	if f.Session == "" && f.Source == "" {
		args = append(args, "-n", strconv.Itoa(limit))
	} else {
		args = append(args, "-n", strconv.Itoa(scanLimit))
	}
	args = append(args, "--")
	if f.File != "" {
		args = append(args, f.File)
	}
	out, err := j.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	var changes []Change
	for _, rec := range bytes.Split(out, []byte{0x1e}) {
		c, ok := parseChange(rec)
		if !ok || (f.Session != "" && c.Session != f.Session) || (f.Source != "" && c.Source != f.Source) {
			continue
		}
		if changes = append(changes, c); len(changes) == limit {
			break
		}
	}
	return changes, nil
}

func parseChange(rec []byte) (Change, bool) {
	fields := strings.Split(string(rec), "\x1f")
	if len(fields) < 7 {
		return Change{}, false
	}
	secs, _ := strconv.ParseInt(fields[1], 10, 64)
	c := Change{Rev: fields[0], Time: time.Unix(secs, 0), Subject: fields[2],
		Source: strings.TrimSpace(fields[3]), Session: strings.TrimSpace(fields[4]), Tool: strings.TrimSpace(fields[5])}
	for _, name := range strings.Split(fields[6], "\n") {
		switch name = strings.TrimSpace(name); {
		case name == "":
		case len(c.Files) < maxFiles:
			c.Files = append(c.Files, name)
		default:
			c.MoreFiles++
		}
	}
	return c, true
}

// isRev reports a revision the dashboard accepts: an object name in lower
// case hex, never an option or an expression.
func isRev(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && (s[i] < 'a' || s[i] > 'f') {
			return false
		}
	}
	return true
}

func (j *gitJournal) Show(ctx context.Context, rev string) (Change, string, error) {
	if !isRev(rev) {
		return Change{}, "", fmt.Errorf("not a change id: %q", rev)
	}
	// --root: one change's page lists the first change's files too, so
	// that each can be restored as it was then.
	out, err := j.git(ctx, "log", "-1", changeFormat, "--name-only", "--no-renames", "--root", rev, "--")
	if err != nil {
		return Change{}, "", err
	}
	c, ok := parseChange(bytes.TrimPrefix(out, []byte{0x1e}))
	if !ok {
		return Change{}, "", fmt.Errorf("journal: change %s not understood", rev)
	}
	const maxDiff = 1 << 20
	diff, cut, err := j.gitBounded(ctx, maxDiff, "show", "--format=", "--patch", "--no-renames", "--no-color", "--no-ext-diff", "--root", rev, "--")
	if err != nil {
		return c, "", err
	}
	text := strings.ToValidUTF8(string(diff), "\uFFFD")
	if cut {
		text += "\n[the diff is cut at 1 MB]\n"
	}
	return c, text, nil
}

func (j *gitJournal) Sizes(ctx context.Context, rev string) (map[string]int64, error) {
	if !isRev(rev) {
		return nil, fmt.Errorf("not a change id: %q", rev)
	}
	out, err := j.git(ctx, "ls-tree", "-r", "-l", "-z", rev)
	if err != nil {
		return nil, err
	}
	sizes := map[string]int64{}
	for _, line := range bytes.Split(out, []byte{0}) {
		// <mode> SP <type> SP <object> SP+ <size> TAB <path>
		meta, path, ok := bytes.Cut(line, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 4 || f[1] != "blob" {
			continue
		}
		n, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			continue
		}
		sizes[string(path)] = n
	}
	return sizes, nil
}

// RestoreDiff is what restoring file (relative to memory/) as at rev
// would change: the file now against that version, as a diff.
func (j *gitJournal) RestoreDiff(ctx context.Context, rev, file string) (string, error) {
	if !isRev(rev) {
		return "", fmt.Errorf("not a change id: %q", rev)
	}
	const maxDiff = 1 << 20
	diff, cut, err := j.gitBounded(ctx, maxDiff, "diff", "--no-color", "--no-ext-diff", "--no-renames", "-R", "--src-prefix=restored/", "--dst-prefix=now/", rev, "--", ":(literal)"+file)
	if err != nil {
		return "", err
	}
	text := strings.ToValidUTF8(string(diff), "\uFFFD")
	if cut {
		text += "\n[the diff is cut at 1 MB]\n"
	}
	return text, nil
}
