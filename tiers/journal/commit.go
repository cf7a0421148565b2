package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/zylos/zylos-memory/internal/flock"
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
	FromTeam      Source = "team"      // another home of the team, applied by a team sync
)

// The trailers of a journal commit.
const (
	trailerSource  = "Zylos-Source"
	trailerSession = "Zylos-Session"
	trailerTool    = "Zylos-Tool"
	trailerCommand = "Zylos-Command"
	trailerUndo    = "Zylos-Undo"     // the session an undo reverted
	trailerToolUse = "Zylos-Tool-Use" // Claude Code's id of the tool call
	trailerHome    = "Zylos-Home"     // the home of the team a change came from
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
	// ToolUse is Claude Code's tool_use_id of the call that made it.
	ToolUse string
	// Home is the home of the team the change came from (FromTeam).
	Home string
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
	for _, t := range [][2]string{{trailerSession, c.Session}, {trailerTool, c.Tool}, {trailerCommand, c.Command}, {trailerToolUse, c.ToolUse}, {trailerUndo, c.Undoes}, {trailerHome, c.Home}} {
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
	return j.commitSelected(ctx, c, selection{})
}

// CommitExcept commits, as c, every change except those of the paths in
// keep (relative to memory/).
func (j *Journal) CommitExcept(ctx context.Context, c Change, keep []string) (*Committed, error) {
	return j.commitSelected(ctx, c, selection{except: keep})
}

// selection is which changed paths a commit takes: only some, or all
// but some; the zero value takes all.
type selection struct {
	only   []string
	except []string
}

func (s selection) takes(path string) bool {
	if s.only != nil {
		return slices.Contains(s.only, path)
	}
	return !slices.Contains(s.except, path)
}

func (j *Journal) commitSelected(ctx context.Context, c Change, sel selection) (res *Committed, err error) {
	return j.commitSeen(ctx, c, sel, nil)
}

// commitSeen is commitSelected given the tree as a look just saw it (nil:
// look now), so that one hook stamps the tree once.
func (j *Journal) commitSeen(ctx context.Context, c Change, sel selection, cur stamp) (res *Committed, err error) {
	if j.Off() {
		return nil, nil
	}
	if info, err := os.Stat(j.dir); err != nil || !info.IsDir() {
		return nil, nil // no memory to keep (yet: init --from clones into it)
	}
	if at, _ := j.Detached(); at != "" && c.Source == FromExternal {
		// memory/ is checked out elsewhere (an old revision to look at):
		// that is no edit of the memory. doctor tells it.
		return nil, nil
	}
	todo := sel.only != nil || len(sel.except) > 0 || cur != nil
	if !todo {
		var paths []string
		var all bool
		paths, all, cur = j.changedNow()
		todo = all || len(paths) > 0 || j.waiting().Count > 0
	}
	if todo {
		res, err = j.commitLocked(ctx, c, sel, cur)
	}
	if err != nil && c.Source != FromExternal {
		// An external edit waits in the tree as it is; anyone else's
		// change waits in the queue, with its author.
		if paths := j.pendingOf(sel); len(paths) > 0 {
			if qerr := j.enqueue(c, paths, err); qerr == nil {
				err = fmt.Errorf("%w; the change waits in the journal's queue", err)
			}
		}
	}
	if err == nil || errors.Is(err, ErrBusy) || errors.As(err, new(*flock.TimeoutError)) {
		j.blocked(err)
	}
	j.report(err)
	return res, err
}

// pendingOf lists the changed paths sel takes, by the stamp; nil when
// the stamp cannot tell.
func (j *Journal) pendingOf(sel selection) []string {
	paths, all := j.ChangedPaths()
	if all {
		return sel.only
	}
	var out []string
	for _, p := range paths {
		if sel.takes(p) {
			out = append(out, p)
		}
	}
	return out
}

// ChangedPaths lists the paths (relative to memory/) that changed since
// the last commit, by their stamp; all is true when there is no stamp to
// tell (every path may have changed).
func (j *Journal) ChangedPaths() (paths []string, all bool) {
	paths, all, _ = j.changedNow()
	return paths, all
}

// changedNow is ChangedPaths and the tree as it saw it (nil when it could
// not walk it).
func (j *Journal) changedNow() (paths []string, all bool, cur stamp) {
	cur, err := walk(j.dir)
	if err != nil {
		return nil, true, nil
	}
	old, ok := j.loadStamp()
	if !ok {
		return nil, true, cur
	}
	return changed(old, cur), false, cur
}

func (j *Journal) commitLocked(ctx context.Context, c Change, sel selection, cur stamp) (*Committed, error) {
	release, err := j.lockFor(ctx)
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
	// A lock left by a dead git was removed with the journal lock; one a
	// live program holds means it is at work (a user's commit waiting for
	// its editor): moving the branch under it would break its commit.
	if err := j.busyLocks(); err != nil {
		return nil, err
	}
	_, hurried := ctx.Deadline()
	j.repairIndex()
	old, stamped := j.loadStamp()
	var walkErr error
	if cur == nil {
		cur, walkErr = walk(j.dir)
	}
	if hurried && walkErr == nil {
		sel = sel.without(bigFiles(old, cur))
	}
	if walkErr == nil && j.head() != "" {
		// What waits is committed first, each with its author, stamp or
		// none.
		drained, err := j.drain(old, cur)
		if err != nil {
			return nil, err
		}
		// A hook, bound by its deadline, commits in process. A command,
		// a task or the service (no deadline) keeps git's own commit: with
		// them committing in process too, memory writers came fast enough
		// that careful editors racing them (TestRewriteStressLosesNothing)
		// saw their swap disturbed, though nothing was lost.
		if stamped && hurried {
			return j.commitInProcess(c, sel, drained, cur)
		}
	}
	// The first commit, or one with no stamp to say what changed: git
	// finds the changes itself.
	if at, branch := j.Detached(); at != "" {
		return nil, fmt.Errorf("%w (memory/ is checked out at %s; the journal's branch is %s)", ErrBusy, at, branch)
	}
	var spec, limit []string
	if sel.only != nil {
		for _, p := range sel.only {
			if !excludedPath(p) {
				limit = append(limit, ":(literal)"+p)
			}
		}
		if len(limit) == 0 {
			return nil, nil
		}
		// No exclusions beside the paths: git 2.39 then adds nothing new in
		// an untracked directory. The paths are checked above instead.
		spec = limit
	} else {
		spec = append([]string{"."}, excludedPathspecs()...)
		for _, k := range sel.except {
			spec = append(spec, ":(exclude,literal)"+k)
		}
	}
	if _, err := j.git(ctx, []byte(strings.Join(spec, "\x00")), "add", "-A", "--force", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		var ge *GitError
		if sel.only == nil || !errors.As(err, &ge) || !strings.Contains(ge.Stderr, "did not match any files") {
			return nil, err
		}
		// The file named is gone and was never kept: nothing to commit.
	}
	// One diff tells the files and, for the watched ones, what left them.
	diff := []string{"diff", "--cached", "--no-renames", "--no-color", "--no-ext-diff", "-U0", "--patch-with-raw"}
	if limit != nil {
		diff = append(append(diff, "--"), limit...)
	}
	out, err := j.git(ctx, nil, diff...)
	if err != nil {
		return nil, err
	}
	files, patch := parseRaw(out)
	keep := func() {
		if walkErr == nil && (stamped || (sel.only == nil && len(sel.except) == 0)) {
			j.saveStamp(sel.merge(old, cur))
		}
	}
	if len(files) == 0 {
		keep()
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
	if limit != nil {
		// Only the selected paths, whatever else the index holds.
		args = append(append(args, "--only", "--"), limit...)
	}
	if _, err := j.git(ctx, []byte(res.Message), args...); err != nil {
		j.dropStamp()
		return nil, err
	}
	res.Rev = j.head()
	keep()
	if !hurried {
		j.catchUp(ctx, false) // git's commit does not append to the path index
	}
	return res, nil
}

// lockFor takes the journal lock within the journal's wait, or the time
// ctx has left if less.
func (j *Journal) lockFor(ctx context.Context) (release func(), err error) {
	wait := j.LockWait
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		wait = time.Until(dl)
	}
	return j.lock(wait)
}

// commitInProcess commits, with no git process, the paths of sel that
// changed from old to cur (see engine).
func (j *Journal) commitInProcess(c Change, sel selection, old, cur stamp) (*Committed, error) {
	var paths []string
	for _, p := range changed(old, cur) {
		if sel.takes(p) && !excludedPath(p) {
			paths = append(paths, p)
		}
	}
	keep := func() { j.saveStamp(sel.merge(old, cur)) }
	if len(paths) == 0 {
		keep()
		return nil, nil
	}
	files, err := readWorktree(j.dir, paths)
	if err != nil {
		return nil, err
	}
	return j.commitFiles(c, files, keep)
}

// commitFiles commits files as c on the journal's branch, then calls
// keep to save the stamp of what it committed.
func (j *Journal) commitFiles(c Change, files []worktreeFile, keep func()) (*Committed, error) {
	ref, attached := j.branchRef()
	parentRev := readRef(j.gitDir, ref)
	parent := plumbing.NewHash(parentRev)
	e := openEngine(j.gitDir)
	st, err := e.stage(parent, files)
	if err != nil {
		return nil, err
	}
	if st == nil {
		keep()
		return nil, nil
	}
	msg := c.message(st.files)
	when := j.now()
	rev, err := e.writeCommit(st.tree, parent, msg, when)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.path
	}
	// The index's entries for these files are listed for repair before
	// the branch moves, and struck once they are set: a commit cut short
	// between the two leaves its index to the next commit, never behind.
	_, err = os.Lstat(filepath.Join(j.gitDir, indexStaleFile))
	behind := err == nil // repaired as a whole by repairIndex
	if attached {
		j.staleIndex(paths)
	}
	subject, _, _ := strings.Cut(msg, "\n")
	if err := e.updateRef(ref, parent, rev, "commit: "+subject, when); err != nil {
		return nil, err
	}
	j.indexCommit(parentRev, rev.String(), st.files)
	if attached && !behind && e.syncIndex(files) == nil {
		os.Remove(filepath.Join(j.gitDir, indexStaleFile))
	}
	keep()
	return &Committed{Rev: rev.String(), Parent: parentRev, Message: msg, Files: st.files, Losses: st.losses}, nil
}

// indexStaleFile lists the paths whose index entries a commit could not
// set (another program held the index), one quoted path a line.
const indexStaleFile = "zylos-journal-index-stale"

// staleIndex adds paths to the index's repairs to come.
func (j *Journal) staleIndex(paths []string) {
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(strconv.Quote(p) + "\n")
	}
	appendFile(filepath.Join(j.gitDir, indexStaleFile), []byte(b.String()), 0o644)
}

// repairIndex sets the index entries that commits could not set to what
// the journal's branch has, when HEAD is on the branch and the index is
// free: with the files' stat data where they still hold what was
// committed, without it (git then looks at the file) where not.
func (j *Journal) repairIndex() {
	marker := filepath.Join(j.gitDir, indexStaleFile)
	data, err := regfile.ReadFile(marker)
	if err != nil {
		return
	}
	ref, attached := j.branchRef()
	if !attached {
		return
	}
	seen := map[string]bool{}
	var paths []string
	for _, line := range strings.Split(string(data), "\n") {
		if p, err := strconv.Unquote(line); err == nil && !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	e := openEngine(j.gitDir)
	files, err := e.committed(plumbing.NewHash(readRef(j.gitDir, ref)), j.dir, paths)
	if err != nil {
		return
	}
	if e.syncIndex(files) == nil {
		os.Remove(marker)
	}
}

// bigFile is the size from which a changed file is left out of a commit
// made under a deadline (a hook's): adding it and diffing it could take
// longer than the hook may, and a git killed at the deadline leaves the
// blob it was writing behind. The service and the commands, which have
// no such deadline, commit it.
const bigFile = 8 << 20

// bigFiles lists the changed paths of cur at or over bigFile bytes.
func bigFiles(old, cur stamp) []string {
	var out []string
	for _, p := range changed(old, cur) {
		if st, ok := cur[p]; ok && st.size >= bigFile {
			out = append(out, p)
		}
	}
	return out
}

// without is the selection less the paths in drop.
func (s selection) without(drop []string) selection {
	if len(drop) == 0 {
		return s
	}
	if s.only != nil {
		s.only = slices.DeleteFunc(slices.Clone(s.only), func(p string) bool { return slices.Contains(drop, p) })
		return s
	}
	s.except = append(slices.Clone(s.except), drop...)
	return s
}

// merge is the stamp after a commit of the selection: the tree as it is
// now for the paths it took, as last committed for the others.
func (s selection) merge(old, cur stamp) stamp {
	out := stamp{}
	for p, st := range old {
		if !s.takes(p) {
			out[p] = st
		}
	}
	for p, st := range cur {
		if s.takes(p) {
			out[p] = st
		}
	}
	return out
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

// head is the commit the journal's branch names, read from the
// repository's files (no git process); "" when there is none yet.
func (j *Journal) head() string {
	ref, _ := j.branchRef()
	return readRef(j.gitDir, ref)
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
