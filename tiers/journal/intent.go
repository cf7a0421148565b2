package journal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/zylos/zylos-memory/internal/lazy"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// A change is attributed by intent, not by timing: a tool call of the
// agent opens a window at its PreToolUse, where what changed before it is
// committed as an external edit, and closes it at its PostToolUse (or
// PostToolUseFailure), where what changed inside it is committed as the
// call's. A file tool's window holds the file it names; a shell's holds
// every other change made while it ran. Outside every window a change is
// an external edit, and whoever looks first (any hook, command or the
// service) commits it as one, never folded into an agent's change.

// Intent is one open tool call.
type Intent struct {
	ID      string    `json:"id"` // Claude Code's tool_use_id
	Session string    `json:"session"`
	Tool    string    `json:"tool"`
	Path    string    `json:"path,omitempty"` // the memory file it names, relative to memory/
	Shell   bool      `json:"shell,omitempty"`
	Opened  time.Time `json:"opened"`

	// start is when the window opened by the file system's clock (its
	// file's modification time), which the memory files' times are
	// compared with: a shell's window holds what changed after it only.
	start int64
}

// intentTTL is how long a window stays open without its PostToolUse: a
// call Claude Code never reported back (an interrupted turn, a hook that
// failed) stops claiming changes after the longest a shell command may
// run (Claude Code's Bash timeout is 10 minutes at most).
const intentTTL = 15 * time.Minute

const intentDir = "journal-intents"

var safeID = lazy.Regexp(`^[A-Za-z0-9_-]{1,128}$`)

func (j *Journal) intentPath(id string) string {
	name := id
	if !safeID().MatchString(id) {
		sum := sha256.Sum256([]byte(id))
		name = "h-" + hex.EncodeToString(sum[:16])
	}
	return filepath.Join(j.state, intentDir, name+".json")
}

// ErrNoIntent is a PostToolUse whose PreToolUse left no intent: the call
// had no id, or its PreToolUse did not run.
var ErrNoIntent = errors.New("no intent recorded for this tool call")

// OpenIntent opens in's window: whatever changed before it, outside the
// windows still open, is committed first as an external edit.
func (j *Journal) OpenIntent(ctx context.Context, in Intent) error {
	if j.Off() || in.ID == "" {
		return nil
	}
	// The pending edits committed and the window opened under one hold
	// of the journal lock: no other commit sees the one without the other.
	if release, err := j.lockFor(ctx); err == nil {
		defer release()
	}
	in.Opened = j.now()
	cctx, cancel := context.WithCancel(ctx)
	if dl, ok := ctx.Deadline(); ok {
		cctx, cancel = context.WithDeadline(ctx, dl.Add(-intentMargin))
	}
	_, cerr := j.CommitOutside(cctx)
	cancel()
	if ctx.Err() != nil {
		// The hook has given up: its PostToolUse finds no window and
		// commits as it can, where a window written now would outlive it.
		return ctx.Err()
	}
	if err := os.MkdirAll(filepath.Join(j.state, intentDir), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	if err := writeState(j.intentPath(in.ID), data); err != nil {
		return err
	}
	return cerr
}

// intentMargin is the time a PreToolUse keeps, after committing what was
// pending, to open its window before its deadline.
const intentMargin = 100 * time.Millisecond

// EndSession closes the windows a session left open: at its Stop every
// tool call of its turn has ended, so a window still open is one whose
// PostToolUse never came (an interrupted call, a hook that gave up).
func (j *Journal) EndSession(session string) {
	if session == "" {
		return
	}
	for _, in := range j.intents() {
		if in.Session == session {
			os.Remove(j.intentPath(in.ID))
		}
	}
}

// intents are the windows open now, the stale ones dropped.
func (j *Journal) intents() []Intent {
	dir := filepath.Join(j.state, intentDir)
	names, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	now := j.now()
	var out []Intent
	for _, n := range names {
		p := filepath.Join(dir, n.Name())
		data, err := regfile.ReadFile(p)
		if err != nil {
			continue
		}
		info, err := os.Lstat(p)
		var in Intent
		if err != nil || json.Unmarshal(data, &in) != nil || now.Sub(in.Opened) > intentTTL {
			os.Remove(p)
			continue
		}
		in.start = info.ModTime().UnixNano()
		out = append(out, in)
	}
	return out
}

// windows tells, for the changed paths of cur, which the open windows
// other than except's hold: a file a file tool named, and a file a
// running shell may have made (changed after the shell's window opened,
// or gone). The rest changed outside every window.
func windows(open []Intent, except string, paths []string, cur stamp) (held []string) {
	for _, p := range paths {
		for _, in := range open {
			if in.ID == except {
				continue
			}
			st, exists := cur[p]
			if in.Path == p || in.Shell && (!exists || st.mtime >= in.start) {
				held = append(held, p)
				break
			}
		}
	}
	return held
}

// CommitOutside commits, as an external edit, what changed outside every
// open window, and answers the commit (nil when there was nothing to
// commit). It is free when the stamp shows nothing changed.
func (j *Journal) CommitOutside(ctx context.Context) (*Committed, error) {
	if j.Off() {
		return nil, nil
	}
	paths, all, cur := j.changedNow()
	if !all && len(paths) == 0 && j.waiting().Count == 0 {
		return nil, nil
	}
	// What is whose is decided under the journal lock, where no window
	// opens or closes meanwhile. Without it the commit below waits, or
	// fails and leaves the edits in the tree.
	if release, err := j.lockFor(ctx); err == nil {
		defer release()
		paths, all, cur = j.changedNow()
	}
	if !all && len(paths) == 0 && j.waiting().Count == 0 {
		return nil, nil
	}
	open := j.intents()
	if len(open) == 0 {
		return j.commitSeen(ctx, Change{Source: FromExternal}, selection{}, cur)
	}
	if all {
		return nil, nil // no stamp to tell the windows' changes from others': the windows' owners commit
	}
	held := windows(open, "", paths, cur)
	if len(held) == len(paths) {
		return nil, nil
	}
	return j.commitSeen(ctx, Change{Source: FromExternal}, selection{except: held}, cur)
}

// HasIntent reports whether the tool call id has an open window.
func (j *Journal) HasIntent(id string) bool {
	if id == "" {
		return false
	}
	_, err := os.Lstat(j.intentPath(id))
	return err == nil
}

// Mark is the memory tree at a moment, for ChangedSince.
type Mark struct{ st stamp }

// Mark stamps the memory tree now.
func (j *Journal) Mark() Mark {
	st, _ := walk(j.dir)
	return Mark{st}
}

// ChangedSince lists the paths that changed since m.
func (j *Journal) ChangedSince(m Mark) []string {
	cur, err := walk(j.dir)
	if err != nil || m.st == nil {
		return nil
	}
	return changed(m.st, cur)
}

// CloseIntent closes the window of the tool call id and commits what
// changed in it as c (c names the session and tool; the call's id is
// added). A file tool's window holds the file it named and the paths in
// also (what the hook itself wrote for the call: the records of an edited
// reference file); a shell's every change not held by another window.
// What changed outside the window is committed first as an external edit.
// ErrNoIntent says no window was opened for id; the caller commits as it
// can.
func (j *Journal) CloseIntent(ctx context.Context, id string, c Change, also []string) (*Committed, error) {
	if j.Off() {
		return nil, nil
	}
	path := j.intentPath(id)
	if _, err := os.Lstat(path); err != nil {
		return nil, ErrNoIntent
	}
	// The window closes, and what is in it is decided, under the journal
	// lock: another session's look never finds the call's change with no
	// window to claim it. Without the lock the commit below waits, or
	// queues the change with its author.
	if release, err := j.lockFor(ctx); err == nil {
		defer release()
	}
	data, err := regfile.ReadFile(path)
	if err != nil {
		return nil, ErrNoIntent
	}
	info, err := os.Lstat(path)
	// Closed first: a commit that fails or is cut short queues the change
	// or leaves it to the next look, never a window open for good.
	os.Remove(path)
	var in Intent
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNoIntent, err)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNoIntent, err)
	}
	in.start = info.ModTime().UnixNano()
	c.ToolUse = in.ID
	paths, all, cur := j.changedNow()
	if !all && len(paths) == 0 && j.waiting().Count == 0 {
		return nil, nil
	}
	open := j.intents()
	if in.Shell {
		if all {
			return j.commitSeen(ctx, c, selection{}, cur)
		}
		// The shell's: what changed after its window opened (or went),
		// that no other window holds. What changed before it, that no
		// other shell may have made, goes first as an external edit.
		held := windows(open, in.ID, paths, cur)
		var mine, before []string
		for _, p := range paths {
			switch st, exists := cur[p]; {
			case slices.Contains(held, p):
			case !exists || st.mtime >= in.start:
				mine = append(mine, p)
			default:
				before = append(before, p)
			}
		}
		var outside selection
		if len(before) > 0 {
			outside = selection{only: before}
		}
		return j.commitBoth(ctx, outside, c, mine, cur)
	}
	if in.Path == "" {
		return nil, nil
	}
	own := append([]string{in.Path}, also...)
	if all {
		return j.commitSeen(ctx, c, selection{only: own}, cur)
	}
	others := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return slices.Contains(own, p) })
	var outside selection
	if held := windows(open, in.ID, others, cur); len(held) < len(others) {
		outside = selection{except: append(held, own...)}
	}
	own = slices.DeleteFunc(own, func(p string) bool { return !slices.Contains(paths, p) })
	return j.commitBoth(ctx, outside, c, own, cur)
}

// commitBoth commits first, as an external edit, what outside selects
// (nothing when it is the zero selection), then own as c. A failure of
// the first leaves the external edits in the tree; the call's own change
// is still committed, or queued, as its own.
func (j *Journal) commitBoth(ctx context.Context, outside selection, c Change, own []string, cur stamp) (*Committed, error) {
	var outsideErr error
	if outside.only != nil || outside.except != nil {
		_, outsideErr = j.commitSeen(ctx, Change{Source: FromExternal}, outside, cur)
	}
	if len(own) == 0 {
		return nil, outsideErr
	}
	res, err := j.commitSeen(ctx, c, selection{only: own}, cur)
	if err == nil {
		err = outsideErr
	}
	return res, err
}
