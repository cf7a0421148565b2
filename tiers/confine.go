package tiers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/zylos/zylos-memory/internal/realpath"
)

// OutsideHomeError is a memory path that leads out of the zylos home
// through a symlink (of the file itself or of a directory on its way).
type OutsideHomeError struct {
	Path     string // relative to the home
	Resolved string // where it leads
	Home     string
}

func (e *OutsideHomeError) Error() string {
	return fmt.Sprintf("%s resolves to %s, outside the home %s; refusing to use it (move it into the home or remove the link)", e.Path, e.Resolved, e.Home)
}

// memoryPaths are the paths of the home every command reads or writes
// by name; files found by listing a directory are taken only when the
// listing says they are regular files, never through a symlink.
func (l Layout) memoryPaths() []string {
	paths := []string{l.MemoryDir()}
	for _, name := range AllInjected() {
		paths = append(paths, filepath.Join(l.MemoryDir(), name))
	}
	return append(paths, l.ReferenceDir(), l.SessionsDir(), l.CurrentSession(),
		l.ArchiveDir(), l.RecordsDir(), l.StateDir(), l.UsersDir())
}

// CheckConfined refuses a home whose memory paths lead outside it: a
// core.md linked to another file would be injected, an archive/ linked
// elsewhere would receive the moved logs, a records/ or .state/ linked out
// would be written there. It is the one check every command runs first.
// A home that does not exist yet has nothing to check.
func (l Layout) CheckConfined() error {
	home, err := filepath.EvalSymlinks(l.ZylosDir)
	if err != nil {
		return nil
	}
	for _, p := range l.memoryPaths() {
		real, err := resolveExisting(p, 0)
		if err != nil {
			return fmt.Errorf("check %s: %w", l.rel(p), err)
		}
		if _, inside := realpath.Below(home, real); real != home && !inside {
			return &OutsideHomeError{Path: l.rel(p), Resolved: real, Home: l.ZylosDir}
		}
	}
	return nil
}

// maxLinkHops bounds the links followed by resolveExisting, as the kernel
// does (ELOOP).
const maxLinkHops = 40

// resolveExisting is path with every symlink of its longest existing
// prefix followed; a dangling link counts as where it points.
func resolveExisting(path string, hops int) (string, error) {
	rest := ""
	for p := filepath.Clean(path); ; {
		info, err := os.Lstat(p)
		switch {
		case err == nil && info.Mode()&fs.ModeSymlink != 0:
			real, evalErr := filepath.EvalSymlinks(p)
			if evalErr == nil {
				return filepath.Join(real, rest), nil
			}
			if hops >= maxLinkHops {
				return "", fmt.Errorf("%s: too many levels of symbolic links", path)
			}
			target, err := os.Readlink(p)
			if err != nil {
				return "", err
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			real, err = resolveExisting(target, hops+1)
			return filepath.Join(real, rest), err
		case err == nil:
			real, err := filepath.EvalSymlinks(p)
			return filepath.Join(real, rest), err
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
