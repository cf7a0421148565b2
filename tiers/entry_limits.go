package tiers

import (
	"fmt"
	"io"
	"os"
)

// MaxEntryFileSize bounds the files parsed into entries. A tier file is a
// few kilobytes; a runaway one (a 50 MB core.md) would cost seconds and
// gigabytes to parse, so it is reported instead of parsed.
const MaxEntryFileSize = 4 << 20

// TooLargeError is a tier file over MaxEntryFileSize.
type TooLargeError struct {
	Path string
	Size int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: file is %d bytes; files over %d bytes are not parsed into entries", e.Path, e.Size, MaxEntryFileSize)
}

// readTierFile reads a tier file for parsing, refusing one over
// MaxEntryFileSize without reading it.
func readTierFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > MaxEntryFileSize {
		return nil, &TooLargeError{Path: path, Size: info.Size()}
	}
	return io.ReadAll(f)
}

// tooLargeEntry stands for a file that was not parsed, so the report names
// it among the malformed entries.
func tooLargeEntry(name string, err *TooLargeError) Entry {
	return Entry{
		File: name, Line: 1, Kind: kindOf(name),
		Problem: fmt.Sprintf("file is %d bytes; files over %d bytes are not parsed into entries", err.Size, MaxEntryFileSize),
	}
}
