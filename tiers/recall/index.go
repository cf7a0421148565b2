package recall

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"unsafe"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/records"
)

// indexEntries parses an index text into the entries records.ParseIndex
// reads, keeping those keep accepts (all when keep is nil). Filtering while
// reading keeps a hook process from touching memory it does not need.
func indexEntries(text string, keep func(records.IndexLine) bool) []records.Entry {
	var out []records.Entry
	records.EachIndexLine(text, func(_ int, l records.IndexLine) {
		if keep == nil || keep(l) {
			out = append(out, l.Entry())
		}
	})
	return out
}

// readIndexRebuilding reads the index of root, rebuilding it first when it
// is missing but the root exists (the index is derived from the files).
func readIndexRebuilding(root string, warn func(string), keep func(records.IndexLine) bool) ([]records.Entry, error) {
	text, err := readIndexText(root, warn)
	if err != nil {
		return nil, err
	}
	return indexEntries(text, keep), nil
}

// readIndexText is the text of root's index, rebuilt first when it is
// missing but the root exists.
func readIndexText(root string, warn func(string)) (string, error) {
	path := filepath.Join(root, records.IndexFile)
	text, err := readString(path)
	if errors.Is(err, fs.ErrNotExist) && isDir(root) {
		// Under the writers' lock, so a rebuild never overwrites the index
		// a concurrent write has just updated.
		if rerr := records.IndexRebuild(root, io.Discard, warn); rerr == nil {
			text, err = readString(path)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w at %s", ErrNoIndex, root)
	}
	if err != nil {
		return "", fmt.Errorf("read index: %w", err)
	}
	return text, nil
}

// readString reads a file into a string without copying it: the index is
// the largest thing a prompt reads, and in a fresh process every copied
// megabyte is page faults. The bytes are never written after the read.
func readString(path string) (string, error) {
	data, err := regfile.ReadFile(path)
	if err != nil || len(data) == 0 {
		return "", err
	}
	return unsafe.String(&data[0], len(data)), nil
}
