package entries

// MaxFileSize bounds the files parsed into entries. A tier file is a
// few kilobytes; a runaway one (a 50 MB core.md) would cost seconds and
// gigabytes to parse, so it is reported instead of parsed.
const MaxFileSize = 4 << 20

// UnparsedError is a tier file that is not parsed into entries: over
// MaxFileSize, or not a regular file (a directory named core.md).
type UnparsedError struct {
	Path     string
	Reason   string
	TooLarge bool // over MaxFileSize, rather than not a regular file
}

func (e *UnparsedError) Error() string { return e.Path + ": " + e.Reason }

// Unparsed is the entry that stands for a file that was not parsed, so a
// report names it among the malformed entries; its Problem says why.
func Unparsed(name string, err *UnparsedError) Entry {
	return Entry{File: name, Line: 1, Kind: KindOf(name), Problem: err.Reason}
}
