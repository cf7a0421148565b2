package tiers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/flock"
	"github.com/zylos/zylos-memory/internal/lazy"
	"github.com/zylos/zylos-memory/internal/regfile"
)

const sessionHeaderPrefix = "# Session Log: "

// maxRotationSuffix bounds the -1, -2, ... search for a free rotation target.
const maxRotationSuffix = 10000

// Rotate does what rotate-session.js does: when sessions/current.md carries
// a date header other than today's, it moves to sessions/DATE.md and a fresh
// current.md is created. now must already be in the chosen location. Unlike
// the Node script it never loses a file: a header-less current.md is kept
// under its modification date, an existing target gets a -N suffix, a
// symlink or directory current.md is refused, and every write is atomic.
// What it did is in the steps, which Messages words as the Node script of
// the home's layout prints them.
func Rotate(l Layout, now time.Time) (steps Rotation, err error) {
	dir := l.SessionsDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create sessions dir: %w", err)
	}
	unlock, err := flock.Acquire(filepath.Join(l.StateDir(), "locks", "rotate.lock"), "another rotation")
	if err != nil {
		return nil, err
	}
	defer unlock()
	atomicfile.Sweep(dir)
	// Appenders never take the lock: a pass that loses a race with one (it
	// created current.md under us) starts over on what it made.
	for attempt := 0; attempt < maxRotationPasses; attempt++ {
		pass, again, err := rotatePass(l.CurrentSession(), now, l.Kind())
		steps = append(steps, pass...)
		if err != nil || !again {
			return steps, err
		}
	}
	return steps, fmt.Errorf("rotate session: %s keeps changing under the rotation; try again", l.CurrentSession())
}

// maxRotationPasses bounds the restarts when appenders keep recreating
// current.md.
const maxRotationPasses = 5

// rotatePass is one attempt of Rotate. current.md is never absent while an
// appender may write: the old file is hard-linked to its dated name and
// the fresh one renamed over it, so a line lands in the old log (if its
// writer opened the file before the rename) or in the new one, never in a
// file that is then replaced.
func rotatePass(current string, now time.Time, kind *Kind) (steps Rotation, again bool, err error) {
	today := now.Format("2006-01-02")
	fresh := []byte(sessionHeaderPrefix + today + "\n\n")
	created := RotationStep{Created: today}
	info, err := os.Lstat(current)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err := atomicfile.CreateExclusive(current, fresh, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return nil, true, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("create current session: %w", err)
		}
		return Rotation{created}, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("rotate session: %w", err)
	case info.Mode()&fs.ModeSymlink != 0:
		return nil, false, fmt.Errorf("rotate session: %s is a symlink; replace it with a regular file (nothing was changed)", current)
	case !info.Mode().IsRegular():
		return nil, false, fmt.Errorf("rotate session: %s is not a regular file; move it aside (nothing was changed)", current)
	}
	data, err := regfile.ReadFile(current)
	if err != nil {
		return nil, false, fmt.Errorf("rotate session: %w", err)
	}
	date, ok := kind.sessionDate(string(data))
	switch {
	case ok && date == today:
		return Rotation{{}}, false, nil
	case !ok && len(data) == 0 && !kind.emptyMoved:
		// Nothing to keep, but replacing the file could drop a line appended
		// since the read: the header is appended instead, which on an empty
		// file is the same content.
		if err := atomicfile.Append(current, fresh); err != nil {
			return nil, false, fmt.Errorf("create current session: %w", err)
		}
		return Rotation{created}, false, nil
	}
	if !ok {
		date = info.ModTime().In(now.Location()).Format("2006-01-02")
	}
	target, err := linkAside(current, date)
	if err != nil {
		return nil, false, err
	}
	moved := RotationStep{RotatedTo: filepath.Base(target), Undated: !ok}
	if err := atomicfile.WriteFile(current, fresh, 0o644); err != nil {
		return Rotation{moved}, false, fmt.Errorf("create current session: %w", err)
	}
	return Rotation{moved, created}, false, nil
}

// RotationStep is one thing a rotation did: moved current.md aside, created
// a fresh one, or (the zero step) found nothing to do.
type RotationStep struct {
	RotatedTo string // the dated name current.md moved to
	Undated   bool   // current.md had no date header: named by its modification date
	Created   string // the date of the fresh current.md
}

// Rotation is what one rotation did, in order.
type Rotation []RotationStep

// Messages are the lines rotate-session.js prints for the rotation: the v2
// script's, or zylos-core v0.7.1's (`Rotated current.md -> D.md`, `No
// rotation needed (current.md matches today).`, no remark on a log without
// a date header).
func (r Rotation) Messages(kind *Kind) []string {
	var msgs []string
	for _, s := range r {
		switch {
		case s.RotatedTo != "" && s.Undated && kind.undated:
			msgs = append(msgs, fmt.Sprintf(kind.rotated, s.RotatedTo)+" (no date header; named by its modification date)")
		case s.RotatedTo != "":
			msgs = append(msgs, fmt.Sprintf(kind.rotated, s.RotatedTo))
		case s.Created != "":
			msgs = append(msgs, "Created fresh current.md for "+s.Created)
		default:
			msgs = append(msgs, kind.unchanged)
		}
	}
	return msgs
}

// SessionDate finds the first "# Session Log: YYYY-MM-DD" at the start of a
// line, as /^# Session Log: (\d{4}-\d{2}-\d{2})/m does in JavaScript (lines
// end at \n, \r, U+2028 or U+2029). The date is not validated: the Node
// script rotates "2026-13-45" to 2026-13-45.md, and so do we.
func SessionDate(content string) (string, bool) {
	for off := 0; ; {
		i := strings.Index(content[off:], sessionHeaderPrefix)
		if i < 0 {
			return "", false
		}
		i += off
		end := i + len(sessionHeaderPrefix)
		if atLineStart(content, i) && end+10 <= len(content) && isDateName(content[end:end+10]) {
			return content[end : end+10], true
		}
		off = i + 1
	}
}

// v071Header is v0.7.1's /^# Session Log:\s*(\d{4}-\d{2}-\d{2})\s*$/m,
// its line ends (\r, U+2028, U+2029) made \n and its \s spelt out (JavaScript's
// white space and line ends, which Go's \s is not).
var v071Header = lazy.Regexp(`(?m)^# Session Log:` + jsSpace + `*(\d{4}-\d{2}-\d{2})` + jsSpace + `*$`)

const jsSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`

var jsLineEnds = strings.NewReplacer("\r", "\n", "\u2028", "\n", "\u2029", "\n")

// sessionDateV071 finds the date of a session log's header as zylos-core
// v0.7.1's rotate-session.js does: blanks around the date allowed, nothing
// else after it on its line.
func sessionDateV071(content string) (string, bool) {
	m := v071Header().FindStringSubmatch(jsLineEnds.Replace(content))
	if m == nil {
		return "", false
	}
	return m[1], true
}

func atLineStart(s string, i int) bool {
	if i == 0 || s[i-1] == '\n' || s[i-1] == '\r' {
		return true
	}
	return strings.HasSuffix(s[:i], "\u2028") || strings.HasSuffix(s[:i], "\u2029")
}

// linkAside hard-links current to DATE.md in its directory, or DATE-1.md,
// DATE-2.md, ... when taken. A hard link cannot replace an existing file,
// so no earlier log is ever clobbered; current itself stays in place until
// the fresh file is renamed over it.
func linkAside(current, date string) (string, error) {
	dir := filepath.Dir(current)
	for n := 0; n < maxRotationSuffix; n++ {
		name := date + ".md"
		if n > 0 {
			name = date + "-" + strconv.Itoa(n) + ".md"
		}
		target := filepath.Join(dir, name)
		err := os.Link(current, target)
		if errors.Is(err, fs.ErrExist) && !linkedBefore(current, target) {
			continue
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("rotate session to %s: %w", name, err)
		}
		return target, atomicfile.SyncDir(dir)
	}
	return "", fmt.Errorf("rotate session: %s.md and %d numbered copies exist", date, maxRotationSuffix)
}

// linkedBefore reports whether target already is current: a rotation that
// stopped between the link and the removal, to be finished, not copied again.
func linkedBefore(current, target string) bool {
	a, errA := os.Stat(current)
	b, errB := os.Stat(target)
	return errA == nil && errB == nil && os.SameFile(a, b)
}
