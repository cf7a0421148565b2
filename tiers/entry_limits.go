package tiers

import (
	"errors"
	"fmt"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// MaxEntryFileSize bounds the files parsed into entries. A tier file is a
// few kilobytes; a runaway one (a 50 MB core.md) would cost seconds and
// gigabytes to parse, so it is reported instead of parsed.
const MaxEntryFileSize = 4 << 20

// UnparsedError is a tier file that is not parsed into entries: over
// MaxEntryFileSize, or not a regular file (a directory named core.md).
type UnparsedError struct {
	Path     string
	Reason   string
	TooLarge bool // over MaxEntryFileSize, rather than not a regular file
}

func (e *UnparsedError) Error() string { return e.Path + ": " + e.Reason }

// ReadTierFile reads a tier file for parsing, refusing one it should not
// parse (too large, or not a regular file) without reading it.
func ReadTierFile(path string) ([]byte, error) {
	data, err := readSteady(path, MaxEntryFileSize)
	var tooLarge *regfile.TooLargeError
	switch {
	case errors.Is(err, regfile.ErrNotRegular):
		return nil, &UnparsedError{Path: path, Reason: "not a regular file; not parsed into entries"}
	case errors.As(err, &tooLarge) && tooLarge.Size < 0:
		return nil, &UnparsedError{Path: path, TooLarge: true,
			Reason: fmt.Sprintf("file grew over %d bytes while read; not parsed into entries", MaxEntryFileSize)}
	case errors.As(err, &tooLarge):
		return nil, &UnparsedError{Path: path, TooLarge: true,
			Reason: fmt.Sprintf("file is %d bytes; files over %d bytes are not parsed into entries", tooLarge.Size, MaxEntryFileSize)}
	}
	return data, err
}

// unparsedEntry stands for a file that was not parsed, so the report names
// it among the malformed entries.
func unparsedEntry(name string, err *UnparsedError) Entry {
	return Entry{File: name, Line: 1, Kind: KindOf(name), Problem: err.Reason}
}
