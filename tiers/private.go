package tiers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// SharedVar is the .env key that marks a home shared with other users on
// purpose: its files keep the modes they have.
const SharedVar = "ZYLOS_MEMORY_SHARED"

// Shared reports a home whose .env sets SharedVar to 1, true or yes.
func (l Layout) Shared() bool {
	data, err := regfile.ReadFile(l.EnvFile())
	if err != nil {
		return false
	}
	switch strings.ToLower(envFileValue(data, SharedVar)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// privateRoots are the parts of a home that hold memory: the memory tree
// (the journal and every conversation's summary included) and the C4
// database (every conversation). Each is private to its owner, as ssh
// keeps ~/.ssh: no access for group or others.
func (l Layout) privateRoots() []string {
	return []string{l.MemoryDir(), filepath.Dir(l.C4DB())}
}

// PrivacyGaps lists, relative to the home, the top directories and memory
// files of l that its group or others may read (at most limit of them),
// and how many there are in all. A directory closed to them hides all it
// holds, so only what a reader could reach is listed.
func (l Layout) PrivacyGaps(limit int) (gaps []string, total int) {
	for _, root := range l.privateRoots() {
		st, err := os.Lstat(root)
		if err != nil || !st.IsDir() {
			continue
		}
		if st.Mode().Perm()&0o077 == 0 {
			continue
		}
		total++
		if len(gaps) < limit {
			gaps = append(gaps, fmt.Sprintf("%s/ (%04o)", l.rel(root), st.Mode().Perm()))
		}
	}
	return gaps, total
}

// MakePrivate takes group's and others' access away from every directory
// and file of the memory tree and the C4 directory (symlinks are not
// followed; the owner's bits stay as they are), and says how many it
// changed.
func (l Layout) MakePrivate() (int, error) {
	changed := 0
	var errs []error
	for _, root := range l.privateRoots() {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				errs = append(errs, err)
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 || !(d.IsDir() || d.Type().IsRegular()) {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if mode := info.Mode().Perm(); mode&0o077 != 0 {
				if err := os.Chmod(p, mode&^0o077); err != nil {
					errs = append(errs, err)
					return nil
				}
				changed++
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return changed, fmt.Errorf("make the home private: %w", errors.Join(errs...))
	}
	return changed, nil
}
