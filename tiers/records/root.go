package records

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// pluginMarker is the directory pair that marks a plugin-style root inside
// a target path (the claude-memory plugin: "scans target path for .claude/memory").
var pluginMarker = []string{".claude", "memory"}

// ResolveRoot picks the records root: the explicit --root if given, else
// the .claude/memory directory a target lies under, else def (normally
// $ZYLOS_DIR/memory/records). The answer is absolute and clean.
func ResolveRoot(explicit, target, def string) (string, error) {
	root := def
	switch {
	case explicit != "":
		root = explicit
	case target != "":
		if r, ok := markedRoot(target); ok {
			root = r
		}
	}
	if root == "" {
		return "", fmt.Errorf("no records root: give --root")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("records root %q: %w", root, err)
	}
	return abs, nil
}

// ProjectRoot is the plugin-style root of a project directory,
// <dir>/.claude/memory, when that directory exists: hooks that are told
// the session's cwd look there, as the plugin does.
func ProjectRoot(dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	root := filepath.Join(dir, pluginMarker[0], pluginMarker[1])
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return "", false
	}
	return root, true
}

// FindProjectRoot is how the plugin's enforce script finds its store:
// <$CLAUDE_PROJECT_ROOT>/.claude/memory when projectEnv names a project
// holding one, else the nearest .claude/memory from dir upward.
func FindProjectRoot(projectEnv, dir string) (string, bool) {
	if root, ok := ProjectRoot(projectEnv); ok {
		return root, true
	}
	for dir != "" {
		if root, ok := ProjectRoot(dir); ok {
			return root, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", false
}

// markedRoot returns the prefix of target ending in .claude/memory.
func markedRoot(target string) (string, bool) {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(target)), "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == pluginMarker[0] && parts[i+1] == pluginMarker[1] {
			return filepath.FromSlash(strings.Join(parts[:i+2], "/")), true
		}
	}
	return "", false
}

// Base is the directory index paths are relative to: the root's
// grandparent (the project for .claude/memory, $ZYLOS_DIR for the
// default memory/records).
func Base(root string) string { return filepath.Dir(filepath.Dir(root)) }

// IndexPath is the path of abs as written in index.md and in answers.
func IndexPath(root, abs string) string {
	rel, err := filepath.Rel(Base(root), abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// Locate turns a user-given or index path into an absolute path confined
// to root. Relative paths are placed by relativeTo, from cwd (the caller's
// working directory, "" when it has none). Any path that leaves root,
// lexically or through a symlink, is refused.
func Locate(root, cwd, p string) (string, error) { return NewLocator(root, cwd).Locate(p) }

// A Locator is Locate for many paths under one root. It resolves the
// root's real path and each directory's verdict once: retrieval opens twenty records in a handful of category folders,
// and resolving every one from scratch cost it a dozen syscalls a record.
// A Locator serves one command; a long-lived one would miss later changes
// to the links.
type Locator struct {
	root string
	cwd  string
	real *string         // the root's real path; "" when it does not exist yet
	dirs map[string]bool // whether a directory stays inside the root
}

func NewLocator(root, cwd string) *Locator {
	return &Locator{root: root, cwd: cwd, dirs: map[string]bool{}}
}

func (l *Locator) Locate(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("empty path")
	}
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return "", fmt.Errorf("path %q contains '..'", p)
		}
	}
	abs := filepath.Clean(p)
	if !filepath.IsAbs(p) {
		abs = l.relativeTo(p)
	}
	if !within(l.root, abs) {
		return "", fmt.Errorf("path %q is outside the records root %s", p, l.root)
	}
	if err := l.noSymlinkOut(abs); err != nil {
		return "", err
	}
	return abs, nil
}

// relativeTo places a relative path: from the working directory when
// that lands inside root, else from root for "decisions/x.json", else
// from Base(root) for "memory/records/decisions/x.json".
func (l *Locator) relativeTo(p string) string {
	if l.cwd != "" {
		if abs := filepath.Join(l.cwd, p); within(l.root, abs) {
			return abs
		}
	}
	first, _, _ := strings.Cut(filepath.ToSlash(p), "/")
	if CategoryOfFolder(first) != "" {
		return filepath.Join(l.root, p)
	}
	return filepath.Join(Base(l.root), p)
}

// noSymlinkOut refuses a path whose existing part resolves outside root,
// and a final component that is itself a symlink.
func (l *Locator) noSymlinkOut(abs string) error {
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("path %q is a symlink", abs)
	}
	dir := filepath.Dir(abs)
	in, ok := l.dirs[dir]
	if !ok {
		in = l.staysIn(dir)
		l.dirs[dir] = in
	}
	if !in {
		return fmt.Errorf("path %q leaves the records root through a symlink", abs)
	}
	return nil
}

// staysIn reports whether the deepest existing ancestor of dir (dir
// included) resolves inside the root's real path.
func (l *Locator) staysIn(dir string) bool {
	if l.real == nil {
		real, _ := filepath.EvalSymlinks(l.root)
		l.real = &real
	}
	if *l.real == "" {
		return true // root not created yet: nothing under it can be a link
	}
	for {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return real == *l.real || within(*l.real, real)
		}
		if dir == l.root || dir == filepath.Dir(dir) {
			return true
		}
		dir = filepath.Dir(dir)
	}
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}
