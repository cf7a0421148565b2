package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/records"
)

// StampFile, under memory/.state/, says what the view files and the record
// folders were when an ingest last left them in step, and what it found
// wrong. An ingest that finds them all as they were has nothing to do and
// reports the same problems: the everyday case (records write checking for
// hand edits) costs a few stats instead of reading every record. It is a
// cache: deleting it only costs one full ingest.
const StampFile = "bridge-ingest.cache"

type stamp struct {
	Keys     []string  `json:"keys"`
	Problems []Problem `json:"problems"`
	// Index is the entry index of the view files (see indexed), "" when
	// not known.
	Index string `json:"index,omitempty"`
}

func (h Memory) stampPath() string { return filepath.Join(h.Layout.StateDir(), StampFile) }

// stateKeys names every view file and record folder with what changes
// when it is written (see fileKey): for a folder, its modification time
// changes as a record write renames into it.
func (h Memory) stateKeys() ([]string, error) {
	var keys []string
	add := func(path string) error {
		key, err := fileKey(path)
		keys = append(keys, path+" "+key)
		return err
	}
	for _, dir := range []string{h.Layout.ReferenceDir(), h.Layout.ArchiveDir()} {
		if err := add(dir); err != nil {
			return nil, err
		}
		des, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read %s: %w", dir, err)
		}
		for _, de := range des {
			if err := add(filepath.Join(dir, de.Name())); err != nil {
				return nil, err
			}
		}
	}
	for i := range specs {
		if err := add(filepath.Join(h.root(), records.Folder(specs[i].category))); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// unchanged answers the stamp's problems and entry index when nothing
// changed since it was written.
func (h Memory) unchanged(keys []string) ([]Problem, string, bool) {
	data, err := regfile.ReadFile(h.stampPath())
	if err != nil {
		return nil, "", false
	}
	var s stamp
	if json.Unmarshal(data, &s) != nil || !slices.Equal(s.Keys, keys) {
		return nil, "", false
	}
	return s.Problems, s.Index, true
}

// saveStamp records keys, the state an ingest found everything in step
// in, and what it found wrong. Failing to is harmless: the next ingest
// does the whole work.
func (h Memory) saveStamp(keys []string, problems []Problem, index string) {
	data, err := json.Marshal(stamp{Keys: keys, Problems: problems, Index: index})
	if err != nil || os.MkdirAll(h.Layout.StateDir(), 0o755) != nil {
		return
	}
	atomicfile.WriteFileUnsynced(h.stampPath(), data, 0o644)
}

// recordNames lists the record files of the bridged categories (absolute
// paths).
func (h Memory) recordNames() (map[string]bool, error) {
	names := map[string]bool{}
	for i := range specs {
		dir := filepath.Join(h.root(), records.Folder(specs[i].category))
		des, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read %s: %w", dir, err)
		}
		for _, de := range des {
			names[filepath.Join(dir, de.Name())] = true
		}
	}
	return names, nil
}
