package tiers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/tiers/entries"
)

// archiveSessions moves the session logs the Node report names as archive
// candidates, so --apply does exactly what the report recommends.
func (a *applier) archiveSessions() error {
	r := &Report{}
	if err := r.findOldSessions(a.l, a.now); err != nil {
		return err
	}
	for _, name := range r.ArchiveCandidates {
		src := filepath.Join(a.l.SessionsDir(), name)
		if info, err := os.Lstat(src); err != nil || !info.Mode().IsRegular() {
			continue // a directory or a symlink is not a session log to move
		}
		to, err := moveNoClobber(src, a.l.ArchiveDir())
		if err != nil {
			return err
		}
		a.report.Moves = append(a.report.Moves, Move{Kind: entries.KindSessionLine, From: "sessions/" + name, To: "archive/" + to})
	}
	return nil
}

// moveNoClobber moves src into dir under its own name, or NAME-1.md,
// NAME-2.md, ... when taken. A hard link cannot replace a file, so no
// archived log is ever overwritten; a link left by a crash before the
// source was removed is recognised as the same file and completed.
func moveNoClobber(src, dir string) (string, error) {
	base := filepath.Base(src)
	stem, ext := base[:len(base)-len(filepath.Ext(base))], filepath.Ext(base)
	srcInfo, err := os.Stat(src)
	if err != nil {
		return "", fmt.Errorf("archive session: %w", err)
	}
	for n := 0; n < maxRotationSuffix; n++ {
		name := base
		if n > 0 {
			name = fmt.Sprintf("%s-%d%s", stem, n, ext)
		}
		target := filepath.Join(dir, name)
		err := os.Link(src, target)
		if errors.Is(err, fs.ErrExist) {
			if info, statErr := os.Stat(target); statErr != nil || !os.SameFile(info, srcInfo) {
				continue
			}
		} else if err != nil {
			return "", fmt.Errorf("archive session %s: %w", base, err)
		}
		if err := atomicfile.SyncDir(dir); err != nil {
			return "", err
		}
		if err := os.Remove(src); err != nil {
			return "", fmt.Errorf("archive session %s: %w", base, err)
		}
		return name, atomicfile.SyncDir(filepath.Dir(src))
	}
	return "", fmt.Errorf("archive session %s: %d numbered copies exist in %s", base, maxRotationSuffix, dir)
}
