package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/records"
)

// Source is who made a change, the Zylos-Source trailer.
type Source string

const (
	FromHook      Source = "hook"      // a tool call of the agent, seen by PostToolUse
	FromCommand   Source = "command"   // a zylos-memory command
	FromScheduler Source = "scheduler" // a task of the memory service
	FromExternal  Source = "external"  // anything else: an editor, a script
)

// The trailers of a journal commit.
const (
	trailerSource  = "Zylos-Source"
	trailerSession = "Zylos-Session"
	trailerTool    = "Zylos-Tool"
	trailerCommand = "Zylos-Command"
	trailerUndo    = "Zylos-Undo" // the session an undo reverted
)

// Change describes who made a change and why.
type Change struct {
	Source  Source
	Session string // the Claude Code session, when known
	Tool    string // the agent's tool, for a hook
	Command string // the command or task, e.g. "records write"
	// Summary says what the change did; empty derives it from the files
	// (`update decision use-postgres`).
	Summary string
	// Label, when set, starts the message instead of the command or tool
	// (the daily snapshot's "memory", as zylos writes it).
	Label string
	// Undoes is the session whose changes this change reverts.
	Undoes string
}

// label is what a commit message starts with: the command, the tool, or
// "external edit".
func (c Change) label() string {
	switch {
	case c.Label != "":
		return c.Label
	case c.Command != "":
		return c.Command
	case c.Tool != "":
		return c.Tool
	case c.Source == FromExternal:
		return "external edit"
	}
	return string(c.Source)
}

func (c Change) message(files []FileChange) string {
	summary := c.Summary
	if summary == "" {
		summary = Describe(files)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\n", c.label(), oneLine(summary))
	fmt.Fprintf(&b, "%s: %s\n", trailerSource, c.Source)
	for _, t := range [][2]string{{trailerSession, c.Session}, {trailerTool, c.Tool}, {trailerCommand, c.Command}, {trailerUndo, c.Undoes}} {
		if v := oneLine(t[1]); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", t[0], v)
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// FileChange is one file a commit changed.
type FileChange struct {
	Status byte   // 'A' added, 'M' modified, 'D' deleted
	Path   string // relative to memory/
}

// Committed is what a commit kept.
type Committed struct {
	Rev     string // the new commit
	Parent  string // the commit before it; "" for the first
	Message string
	Files   []FileChange
	Losses  []Loss // lines removed from the watched files
}

// Commit commits every change under memory/ as c, and answers nil when
// nothing changed (there is never an empty commit) or the journal is off.
func (j *Journal) Commit(ctx context.Context, c Change) (*Committed, error) {
	return j.commit(ctx, c, nil)
}

// CommitExcept commits, as c, every change except those of the paths in
// keep (relative to memory/): a hook calls it with c an external edit
// before its own commit, so that its commit never swallows them.
func (j *Journal) CommitExcept(ctx context.Context, c Change, keep []string) (*Committed, error) {
	return j.commit(ctx, c, keep)
}

func (j *Journal) commit(ctx context.Context, c Change, keep []string) (res *Committed, err error) {
	if j.Off() {
		return nil, nil
	}
	if info, err := os.Stat(j.dir); err != nil || !info.IsDir() {
		return nil, nil // no memory to keep (yet: init --from clones into it)
	}
	if len(keep) > 0 || !j.unchanged() {
		res, err = j.commitLocked(ctx, c, keep)
	}
	j.report(err)
	return res, err
}

// unchanged reports, without git, that the tree is as last committed.
func (j *Journal) unchanged() bool {
	old, ok := j.loadStamp()
	if !ok {
		return false
	}
	cur, err := walk(j.dir)
	return err == nil && len(changed(old, cur)) == 0
}

// ChangedPaths lists the paths (relative to memory/) that changed since
// the last commit, by their stamp; all is true when there is no stamp to
// tell (every path may have changed).
func (j *Journal) ChangedPaths() (paths []string, all bool) {
	old, ok := j.loadStamp()
	if !ok {
		return nil, true
	}
	cur, err := walk(j.dir)
	if err != nil {
		return nil, true
	}
	return changed(old, cur), false
}

func (j *Journal) commitLocked(ctx context.Context, c Change, keep []string) (*Committed, error) {
	wait := j.LockWait
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		wait = time.Until(dl)
	}
	release, err := j.lock(wait)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := j.ensure(ctx); err != nil {
		return nil, err
	}
	if err := j.busy(); err != nil {
		return nil, err
	}
	cur, walkErr := walk(j.dir)
	spec := append([]string{"."}, excludedPathspecs...)
	for _, k := range keep {
		spec = append(spec, ":(exclude,literal)"+k)
	}
	if _, err := j.git(ctx, []byte(strings.Join(spec, "\x00")), "add", "-A", "--force", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		return nil, err
	}
	// One diff tells the files and, for the watched ones, what left them.
	out, err := j.git(ctx, nil, "diff", "--cached", "--no-renames", "--no-color", "--no-ext-diff", "-U0", "--patch-with-raw")
	if err != nil {
		return nil, err
	}
	files, patch := parseRaw(out)
	if len(files) == 0 {
		if len(keep) == 0 && walkErr == nil {
			j.saveStamp(cur)
		}
		return nil, nil
	}
	parent := j.head()
	res := &Committed{Parent: parent, Files: files, Message: c.message(files)}
	if parent != "" {
		res.Losses = parseLosses(patch, watched)
	}
	// git add staged every new file already: commit need not look for
	// untracked ones (a third of its time on a large journal).
	args := []string{"commit", "-q", "--no-verify", "--untracked-files=no", "--allow-empty-message", "-F", "-"}
	if c.Source == FromHook {
		// A hook stays quick: git gc --auto runs from the commands and the
		// service (see Watch), not after each tool call.
		args = append([]string{"-c", "maintenance.auto=false"}, args...)
	}
	if _, err := j.git(ctx, []byte(res.Message), args...); err != nil {
		j.dropStamp()
		return nil, err
	}
	res.Rev = j.head()
	if len(keep) == 0 && walkErr == nil {
		j.saveStamp(cur)
	}
	return res, nil
}

// parseRaw reads `git diff --patch-with-raw`: the files it changed, from
// the raw lines (`:100644 100644 SHA SHA M<TAB>path`), and the patch.
func parseRaw(out string) (files []FileChange, patch string) {
	for len(out) > 0 && out[0] == ':' {
		line, rest, _ := strings.Cut(out, "\n")
		out = rest
		meta, path, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) < 5 || f[4] == "" {
			continue
		}
		if strings.HasPrefix(path, `"`) {
			if p, err := strconv.Unquote(path); err == nil {
				path = p
			}
		}
		files = append(files, FileChange{Status: f[4][0], Path: path})
	}
	return files, strings.TrimPrefix(out, "\n")
}

// parseNameStatus reads `git diff --name-status -z`.
func parseNameStatus(out string) []FileChange {
	var files []FileChange
	f := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] == "" {
			continue
		}
		files = append(files, FileChange{Status: f[i][0], Path: f[i+1]})
	}
	return files
}

// head is the commit HEAD names, read from the repository's files (no
// git process); "" when there is none yet.
func (j *Journal) head() string {
	data, err := regfile.ReadFile(filepath.Join(j.gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref := strings.TrimSpace(string(data))
	name, ok := strings.CutPrefix(ref, "ref: ")
	if !ok {
		return ref // detached
	}
	if data, err := regfile.ReadFile(filepath.Join(j.gitDir, filepath.FromSlash(name))); err == nil {
		return strings.TrimSpace(string(data))
	}
	packed, _ := regfile.ReadFile(filepath.Join(j.gitDir, "packed-refs"))
	for _, line := range strings.Split(string(packed), "\n") {
		if rev, r, ok := strings.Cut(line, " "); ok && r == name {
			return rev
		}
	}
	return ""
}

// Describe says what a set of file changes did, naming records by
// category and id: `update decision use-postgres, create core.md`.
func Describe(files []FileChange) string {
	if len(files) == 0 {
		return "no change"
	}
	sorted := append([]FileChange(nil), files...)
	sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].Path < sorted[b].Path })
	const shown = 3
	var parts []string
	for i, f := range sorted {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(sorted)-shown))
			break
		}
		parts = append(parts, verb(f.Status)+" "+name(f.Path))
	}
	return strings.Join(parts, ", ")
}

func verb(status byte) string {
	switch status {
	case 'A':
		return "create"
	case 'D':
		return "delete"
	}
	return "update"
}

// name is how a path is told: a record as `decision use-postgres`, any
// other file by its path under memory/.
func name(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) == 3 && parts[0] == "records" && strings.HasSuffix(parts[2], ".json") {
		if category := records.CategoryOfFolder(parts[1]); category != "" {
			return category + " " + strings.TrimSuffix(parts[2], ".json")
		}
	}
	return path
}

// report says a problem once: it is kept in the state directory, and a
// caller that warns checks Problem; a success clears it.
func (j *Journal) report(err error) {
	path := filepath.Join(j.state, problemFile)
	if err == nil || errors.Is(err, ErrBusy) {
		if err == nil {
			os.Remove(path)
		}
		return
	}
	os.MkdirAll(j.state, 0o755)
	os.WriteFile(path, []byte(err.Error()+"\n"), 0o644)
}

// NewProblem reports whether err is a problem not yet told: the first
// time a given journal failure happens, not on every write after it.
func (j *Journal) NewProblem(err error) bool {
	if err == nil {
		return false
	}
	return j.problemCount(err.Error()) == 1
}

// problemCount counts how often the problem msg was met in a row.
func (j *Journal) problemCount(msg string) int {
	path := filepath.Join(j.state, problemFile+"-told")
	data, _ := regfile.ReadFile(path)
	if strings.TrimSpace(string(data)) == msg {
		return 2
	}
	os.WriteFile(path, []byte(msg+"\n"), 0o644)
	return 1
}
