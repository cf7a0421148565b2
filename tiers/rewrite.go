package tiers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// ErrChangedSinceRead says a file was edited, other than by appending, or
// replaced after it was read for a rewrite: rewriting it would lose that
// edit, so nothing was written.
var ErrChangedSinceRead = errors.New("changed since it was read")

// Rewrite replaces the file at path, which read as src, with next, without
// losing a line another writer appends meanwhile: what was appended since
// the read is carried to the end of next, both before the replacement and
// until the old file is read a last time. Any other change is refused with
// ErrChangedSinceRead.
//
// The old file is kept under memory/.state/backups/ by a hard link when
// backup is set, and also whenever it grew since the read: an appender is
// then at work, and a line it writes through a descriptor opened before
// the replacement, after the last read, still lands in that backup rather
// than nowhere. Rewrite returns the backup's path, or "" when none was
// taken.
func (l Layout) Rewrite(path string, src, next []byte, backup bool, now time.Time) (string, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	cur, err := io.ReadAll(f)
	if err != nil {
		return "", err
	}
	if !bytes.HasPrefix(cur, src) {
		return "", ErrChangedSinceRead
	}
	var kept string
	if backup || len(cur) > len(src) {
		kept, err = l.linkBackUp(path, f, cur, now)
		if errors.Is(err, errChangedUnder) {
			return "", ErrChangedSinceRead
		}
		if err != nil {
			return "", err
		}
	}
	if err := atomicfile.WriteFile(path, append(append([]byte(nil), next...), cur[len(src):]...), 0o644); err != nil {
		return kept, err
	}
	late, err := io.ReadAll(f)
	if err != nil {
		return kept, err
	}
	if len(late) > 0 {
		if err := atomicfile.Append(path, late); err != nil {
			return kept, fmt.Errorf("keep lines appended during the rewrite: %w", err)
		}
	}
	return kept, nil
}
