package tiers

import (
	"errors"
	"fmt"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/entries"
)

// ParseFile reads and parses one tier file; entries carry path as File.
// A file over entries.MaxFileSize or not regular is refused with an *entries.UnparsedError.
func ParseFile(path string) ([]entries.Entry, error) {
	src, err := ReadTierFile(path)
	if err != nil {
		return nil, fmt.Errorf("read entries: %w", err)
	}
	return entries.Parse(path, src), nil
}

// ReadTierFile reads a tier file for parsing, refusing one it should not
// parse (too large, or not a regular file) without reading it.
func ReadTierFile(path string) ([]byte, error) {
	data, err := readSteady(path, entries.MaxFileSize)
	var tooLarge *regfile.TooLargeError
	switch {
	case errors.Is(err, regfile.ErrNotRegular):
		return nil, &entries.UnparsedError{Path: path, Reason: "not a regular file; not parsed into entries"}
	case errors.As(err, &tooLarge) && tooLarge.Size < 0:
		return nil, &entries.UnparsedError{Path: path, TooLarge: true,
			Reason: fmt.Sprintf("file grew over %d bytes while read; not parsed into entries", entries.MaxFileSize)}
	case errors.As(err, &tooLarge):
		return nil, &entries.UnparsedError{Path: path, TooLarge: true,
			Reason: fmt.Sprintf("file is %d bytes; files over %d bytes are not parsed into entries", tooLarge.Size, entries.MaxFileSize)}
	}
	return data, err
}
