// Package sqliteuri builds the file: URIs zylos-memory opens its SQLite
// databases with, and knows how to read one without writing a byte.
package sqliteuri

import (
	"errors"
	"io"
	"net/url"
	"os"

	"github.com/zylos/zylos-memory/internal/regfile"
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
// immutable, such a file is read without leaving a byte behind. An
// immutable reader takes no lock, so a writer that opens and closes while
// it reads (closing checkpoints the WAL into the main file) can show it a
// half-written page: a read that fails or must be exact should be tried
// again with ReadOnlyLocked.
func ReadOnly(path string) url.Values {
	q := ReadOnlyLocked()
	if walAtRest(path) {
		q.Set("immutable", "1")
	}
	return q
}

// ReadOnlyLocked is mode=ro alone: a read-only connection that takes
// SQLite's locks, at the price of -wal and -shm files beside a WAL
// database.
func ReadOnlyLocked() url.Values { return url.Values{"mode": {"ro"}} }

// CheckFiles refuses a database whose file, or whose -wal, -shm or
// -journal beside it, exists and is not a regular file: SQLite would open
// a FIFO and block forever. Call it before handing path to SQLite.
func CheckFiles(path string) error {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := regfile.Check(path + suffix); err != nil {
			return err
		}
	}
	return nil
}

// walAtRest reports a WAL-mode database that no connection has open (no
// -wal or -shm beside it).
func walAtRest(path string) bool {
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Lstat(path + suffix); !errors.Is(err, os.ErrNotExist) {
			return false
		}
	}
	f, err := regfile.Open(path)
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
