package tiers

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/templates"
)

// InitReport says what Init did, each path relative to the zylos home.
type InitReport struct {
	Created  []string
	Replaced []Replacement // only with force, and only when the content differed
	Kept     []string      // already there and left alone
}

// Replacement is a file init --force rewrote and where the old one went.
type Replacement struct {
	Path, Backup string
}

// Changed reports whether Init touched anything.
func (r InitReport) Changed() bool { return len(r.Created)+len(r.Replaced) > 0 }

// Lines is the report as printed by `zylos-memory init`.
func (r InitReport) Lines() []string {
	var lines []string
	for _, p := range r.Created {
		lines = append(lines, "created "+p)
	}
	for _, p := range r.Replaced {
		lines = append(lines, fmt.Sprintf("replaced %s (old copy: %s)", p.Path, p.Backup))
	}
	if !r.Changed() {
		return append(lines, fmt.Sprintf("memory already initialised: nothing changed (%d files kept)", len(r.Kept)))
	}
	if len(r.Kept) > 0 {
		lines = append(lines, fmt.Sprintf("kept %d existing files", len(r.Kept)))
	}
	return lines
}

// seed is one embedded template and where init installs it.
type seed struct {
	template string
	target   func(Layout) string
}

// v2Seeds are the templates of the v2 layout and this binary's skill.
var v2Seeds = []seed{
	{"memory/core.md", Layout.CoreFile},
	{"memory/reference/decisions.md", func(l Layout) string { return filepath.Join(l.ReferenceDir(), "decisions.md") }},
	{"memory/reference/projects.md", func(l Layout) string { return filepath.Join(l.ReferenceDir(), "projects.md") }},
	{"memory/reference/preferences.md", func(l Layout) string { return filepath.Join(l.ReferenceDir(), "preferences.md") }},
	{"skill/SKILL.md", func(l Layout) string { return filepath.Join(l.SkillDir(), "SKILL.md") }},
	{"skill/CLAUDE.md", func(l Layout) string { return filepath.Join(l.SkillDir(), "CLAUDE.md") }},
}

// v07Seeds are the templates of the v0.7 layout, installed under memory/
// by their path below templates' memory-v07/.
func v07Seeds() []seed {
	var out []seed
	for _, rel := range []string{"identity.md", "state.md", "references.md", "reference/decisions.md",
		"reference/projects.md", "reference/preferences.md", "reference/ideas.md", "users/default/profile.md"} {
		out = append(out, seed{"memory-v07/" + rel, func(l Layout) string { return filepath.Join(l.MemoryDir(), filepath.FromSlash(rel)) }})
	}
	return out
}

// Init creates the memory directories, seeds the templates of the home's
// layout (Detect; a home without memory files or setting gets DefaultKind) and today's
// session log, and installs the memory skill files. An existing file is
// never overwritten, except a template or skill file with force, and then
// only after a copy was saved under memory/.state/backups/. Today's
// current.md is never replaced. now must be in the chosen location.
func Init(l Layout, now time.Time, force bool) (InitReport, error) {
	return InitKind(l, now, force, l.SeedKind())
}

// SeedKind is the layout init seeds without --layout: the one the home
// has or its setting names, else DefaultKind.
func (l Layout) SeedKind() *Kind {
	if kind, found := l.Detect(); found {
		return kind
	}
	return DefaultKind
}

// ErrLayoutMismatch reports an init asked for a layout other than the one
// the home already has.
var ErrLayoutMismatch = errors.New("layout mismatch")

// InitKind is Init with the layout chosen: it refuses one that differs
// from the layout whose files the home already has (a setting does not
// hold back an explicit choice), so a core.md is never seeded into a v0.7
// home nor v0.7's files beside a core.md. The v0.7 layout gets its own
// files and no skill files of this binary (zylos's zylos-memory skill
// describes that layout).
func InitKind(l Layout, now time.Time, force bool, kind *Kind) (InitReport, error) {
	var r InitReport
	if have := l.marked(); have != nil && have != kind {
		return r, fmt.Errorf("%w: the home at %s has the %s layout, not %s", ErrLayoutMismatch, l.ZylosDir, have, kind)
	}
	dirs := []string{l.ReferenceDir(), l.SessionsDir(), l.ArchiveDir()}
	if kind.skill {
		dirs = append(dirs, l.SkillDir())
	}
	for _, dir := range dirs {
		if err := r.makeDir(l, dir); err != nil {
			return r, err
		}
	}
	atomicfile.Sweep(append(dirs, l.MemoryDir())...)
	for _, s := range kind.seeds {
		data, err := fs.ReadFile(templates.FS, s.template)
		if err != nil {
			return r, fmt.Errorf("read template %s: %w", s.template, err)
		}
		if strings.HasPrefix(s.template, "skill/") {
			data = l.personalize(data)
		}
		if err := os.MkdirAll(filepath.Dir(s.target(l)), 0o755); err != nil {
			return r, fmt.Errorf("create %s: %w", filepath.Dir(s.target(l)), err)
		}
		if err := r.install(l, s.target(l), data, force, now); err != nil {
			return r, err
		}
	}
	header := []byte(sessionHeaderPrefix + now.Format("2006-01-02") + "\n\n")
	return r, r.install(l, l.CurrentSession(), header, false, now)
}

func (r *InitReport) makeDir(l Layout, dir string) error {
	if info, err := os.Stat(dir); err == nil && info.IsDir() {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	r.Created = append(r.Created, l.rel(dir)+"/")
	return nil
}

// install creates path with data, or with force replaces a differing file
// after backing it up.
func (r *InitReport) install(l Layout, path string, data []byte, force bool, now time.Time) error {
	err := atomicfile.CreateExclusive(path, data, 0o644)
	if err == nil {
		r.Created = append(r.Created, l.rel(path))
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	if !force {
		r.Kept = append(r.Kept, l.rel(path))
		return nil
	}
	old, err := regfile.ReadFile(path)
	if err != nil {
		return fmt.Errorf("back up %s: %w", path, err)
	}
	if bytes.Equal(old, data) {
		r.Kept = append(r.Kept, l.rel(path))
		return nil
	}
	backup, err := l.BackUp(path, old, now)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	r.Replaced = append(r.Replaced, Replacement{Path: l.rel(path), Backup: l.rel(backup)})
	return nil
}

// BackUp saves data under memory/.state/backups/ with the file's relative
// path and a timestamp, never overwriting an earlier backup.
func (l Layout) BackUp(path string, data []byte, now time.Time) (string, error) {
	return l.placeBackUp(path, now, func(target string) error {
		return atomicfile.CreateExclusive(target, data, 0o644)
	})
}

// linkBackUp backs up the file open as f, which path named when it was
// opened, by a hard link: a line appended to it after the backup is taken
// still lands in the backup. It reports errChangedUnder when path no longer
// names f. A backups dir on another filesystem gets a copy of data.
func (l Layout) linkBackUp(path string, f *os.File, data []byte, now time.Time) (string, error) {
	opened, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("back up %s: %w", path, err)
	}
	return l.placeBackUp(path, now, func(target string) error {
		err := os.Link(path, target)
		if errors.Is(err, syscall.EXDEV) {
			return atomicfile.CreateExclusive(target, data, 0o644)
		}
		if err != nil {
			return err
		}
		if linked, err := os.Stat(target); err != nil || !os.SameFile(linked, opened) {
			// Nothing is lost by dropping it: path still names that file.
			os.Remove(target)
			return errChangedUnder
		}
		return atomicfile.SyncDir(filepath.Dir(target))
	})
}

// errChangedUnder says a file was replaced while it was being rewritten.
var errChangedUnder = errors.New("replaced while it was read")

// placeBackUp finds the first free backup name for path and has place
// create it there (failing with fs.ErrExist when it is taken).
func (l Layout) placeBackUp(path string, now time.Time, place func(target string) error) (string, error) {
	base := filepath.Join(l.StateDir(), "backups", l.rel(path)+"."+now.Format("20060102T150405"))
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", fmt.Errorf("back up %s: %w", path, err)
	}
	for n := 0; n < maxRotationSuffix; n++ {
		target := base
		if n > 0 {
			target = fmt.Sprintf("%s-%d", base, n)
		}
		err := place(target)
		if err == nil {
			return target, nil
		}
		if errors.Is(err, errChangedUnder) {
			return "", err
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
	}
	return "", fmt.Errorf("back up %s: too many backups", path)
}

// rel is path relative to the zylos home, for messages.
func (l Layout) rel(path string) string {
	if r, err := filepath.Rel(l.ZylosDir, path); err == nil {
		return r
	}
	return path
}

// personalize makes skill text name this home: its paths instead of
// ~/zylos, and every command with --zylos-dir, so that each works as
// written from any working directory.
func (l Layout) personalize(text []byte) []byte {
	home := l.ZylosDir
	if strings.ContainsFunc(home, func(r rune) bool { return !safeInShell(r) }) {
		home = "'" + strings.ReplaceAll(home, "'", `'\''`) + "'"
	}
	s := strings.ReplaceAll(string(text), "~/zylos", l.ZylosDir)
	s = strings.ReplaceAll(s, "zylos-memory ", "zylos-memory --zylos-dir "+home+" ")
	return []byte(s)
}

func safeInShell(r rune) bool {
	return r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%", r))
}
