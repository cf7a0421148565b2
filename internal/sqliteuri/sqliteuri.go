// Package sqliteuri builds the file: URIs zylos-memory opens its SQLite
// databases with, and knows how to read one without writing a byte.
package sqliteuri

import (
	"errors"
	"io"
	"net/url"
	"os"
)

// URI is a file: URI for path with the query q. A URI, unlike a bare path,
// makes SQLite honour mode=ro and immutable, and escapes odd characters in
// the path.
func URI(path string, q url.Values) string {
	u := url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: q.Encode()}
	return u.String()
}

// ReadOnly is the query that opens path for reading only: mode=ro, and
// immutable=1 for a WAL database no connection has open. SQLite would
// create a -wal and a -shm file even for a read-only connection; opened
// immutable, such a file is read without leaving a byte behind. The main
// file of a WAL database changes only at a checkpoint, which a writer
// opening meanwhile reaches only after 1000 pages of WAL, far longer than
// a read command lives.
func ReadOnly(path string) url.Values {
	q := url.Values{"mode": {"ro"}}
	if walAtRest(path) {
		q.Set("immutable", "1")
	}
	return q
}

// walAtRest reports a WAL-mode database that no connection has open (no
// -wal or -shm beside it).
func walAtRest(path string) bool {
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Lstat(path + suffix); !errors.Is(err, os.ErrNotExist) {
			return false
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var header [20]byte
	if _, err := io.ReadFull(f, header[:]); err != nil {
		return false
	}
	// Bytes 18 and 19 are the file format read/write versions: 2 means WAL.
	return string(header[:16]) == "SQLite format 3\x00" && header[18] == 2
}
