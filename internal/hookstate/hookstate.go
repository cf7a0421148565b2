// Package hookstate keeps what the Claude Code hooks remember between two
// calls of one session (the stop flag, the sync trigger count, the triage
// context files) in a directory per session under the home's
// memory/.state/sessions/, mode 0700. Nothing lands in the directory the
// session runs in, and nothing is shared between homes or sessions.
package hookstate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// MaxAge is how long the state of a session that went quiet is kept:
// Prune removes the directories of older sessions.
const MaxAge = 24 * time.Hour

// noSession names the state of a call whose input carries no session id
// (a hand-run hook, an older client).
const noSession = "no-session"

// maxIDLen bounds a directory name built from a session id.
const maxIDLen = 128

// Dir is the state directory of a session, below stateDir (the home's
// memory/.state). The id is reduced to a safe file name.
func Dir(stateDir, sessionID string) string {
	return filepath.Join(stateDir, "sessions", safeName(sessionID))
}

func safeName(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= maxIDLen {
			break
		}
	}
	if b.Len() == 0 {
		return noSession
	}
	return b.String()
}

// Ensure creates dir (and its parents) for the state files, 0700.
func Ensure(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(dir, 0o700)
}

// ReadInt reads a number stored by WriteInt; ok is false when the file is
// missing or holds something else.
func ReadInt(dir, name string) (n int64, ok bool) {
	ns, ok := ReadInts(dir, name, 1)
	if !ok {
		return 0, false
	}
	return ns[0], true
}

// WriteInt stores n in dir/name (0600, replaced atomically), creating dir.
func WriteInt(dir, name string, n int64) error { return WriteInts(dir, name, n) }

// ReadInts reads the count numbers stored by WriteInts; ok is false when
// the file is missing or holds something else.
func ReadInts(dir, name string, count int) (ns []int64, ok bool) {
	data, err := regfile.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, false
	}
	fields := strings.Fields(string(data))
	if len(fields) != count {
		return nil, false
	}
	for _, f := range fields {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, false
		}
		ns = append(ns, n)
	}
	return ns, true
}

// WriteInts stores ns in dir/name (0600, replaced atomically), creating
// dir: numbers that change together in one write.
func WriteInts(dir, name string, ns ...int64) error {
	if err := Ensure(dir); err != nil {
		return err
	}
	var text []string
	for _, n := range ns {
		text = append(text, strconv.FormatInt(n, 10))
	}
	return atomicfile.WriteFile(filepath.Join(dir, name), []byte(strings.Join(text, " ")+"\n"), 0o600)
}

// Remove deletes dir/name; a missing file is no error.
func Remove(dir, name string) error {
	err := os.Remove(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Prune removes the state of every session whose directory was last
// changed more than MaxAge before now. It is best effort: a directory that
// cannot be read or removed is left for the next call.
func Prune(stateDir string, now time.Time) {
	root := filepath.Join(stateDir, "sessions")
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !e.IsDir() || now.Sub(info.ModTime()) < MaxAge {
			continue
		}
		_ = os.RemoveAll(filepath.Join(root, e.Name()))
	}
}
