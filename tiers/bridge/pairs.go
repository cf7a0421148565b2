package bridge

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// PairsFile, under memory/.state/, lists the entries the last ingest found
// in step with their records: for each record (category/id), the key of
// its file when it was read (see fileKey) and a digest of what the entry
// says to the record (its view file, its id and the fields the record
// maps). An ingest after a hand edit reads only the
// records whose file or entry no longer matches its pair: the others
// would come out of it unchanged. A pair states a fact about two
// contents, true for as long as both are as they were, so a stale pair
// merely fails to match; deleting the file only costs one full read of
// the records.
const PairsFile = "bridge-pairs.cache"

// pair is one line of the PairsFile.
type pair struct{ key, digest string }

func (h Memory) pairsPath() string { return filepath.Join(h.Layout.StateDir(), PairsFile) }

// readPairs reads the PairsFile, keyed by category/id; any trouble reading
// it answers none.
func (h Memory) readPairs() map[string]pair {
	out := map[string]pair{}
	data, err := regfile.ReadFile(h.pairsPath())
	if err != nil {
		return out
	}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		f := strings.Split(string(line), "\t")
		if len(f) == 3 {
			out[f[0]] = pair{key: f[1], digest: f[2]}
		}
	}
	return out
}

// savePairs writes the pairs an ingest leaves in step: those it found
// matching and did not read, and each entry holding an id whose record
// it read and did not write. A record written, an entry malformed or a
// record unreadable has no pair: the next ingest reads it. Failing to
// write is harmless.
func (in *ingester) savePairs() {
	var b strings.Builder
	for key, e := range in.ids.holders {
		p, ok := in.pairs[key]
		if !ok {
			st := in.recs[key]
			if st == nil || in.records.touched[st.abs] || e.problem != "" {
				continue
			}
			p = pair{key: st.fileKey, digest: e.digest()}
		}
		b.WriteString(key + "\t" + p.key + "\t" + p.digest + "\n")
	}
	if os.MkdirAll(in.Layout.StateDir(), 0o755) == nil {
		atomicfile.WriteFileUnsynced(in.pairsPath(), []byte(b.String()), 0o644)
	}
}

// digest sums what the entry says to its record: its file, its id and
// its projection (which takes a project's status from its section, outside
// the entry's bytes), its team comment included: an edit of that line
// makes the ingest read the record, to take in a private mark or show the
// record's team again. An entry without one sums as before the team
// comment existed, so the pairs of such entries stay good.
func (e *entry) digest() string {
	if e.sum != "" {
		return e.sum
	}
	p := e.spec.entryProjection(e.Entry)
	h := sha256.New()
	var n [8]byte
	parts, k := [...]string{e.File, e.id, p.title, p.date, p.fields[0], p.fields[1], p.fields[2], p.body, p.team}, 8
	if p.team != "" {
		k++
	}
	for _, s := range parts[:k] {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// fileKey is what changes when a file is written: its mode, size,
// modification time, inode and change time ("-" when it does not exist).
// The change time, which no one can set, tells an edit whose
// modification time was put back (cp -p, rsync -t, touch -r) and whose
// size did not change.
func fileKey(path string) (string, error) {
	var st syscall.Stat_t
	err := syscall.Lstat(path, &st)
	if errors.Is(err, syscall.ENOENT) {
		return "-", nil
	}
	if err != nil {
		return "", fmt.Errorf("stat %s: %w", path, err)
	}
	// As fmt's "%o %d %d.%d %d", without its cost: every record file is
	// keyed on every ingest.
	b := make([]byte, 0, 64)
	b = strconv.AppendUint(b, uint64(st.Mode), 8)
	b = append(b, ' ')
	b = strconv.AppendInt(b, st.Size, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, st.Mtim.Sec, 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, st.Mtim.Nsec, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, st.Ino, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, st.Ctim.Sec, 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, st.Ctim.Nsec, 10)
	return string(b), nil
}

// settle decides the records loadRecords held back: one whose entry is
// the holder of its id and says what its pair says is in step (the entry
// is marked paired and the pair kept); any other is read now.
func (in *ingester) settle(held []*stored, pairs map[string]pair) error {
	for _, st := range held {
		key := st.key()
		p := pairs[key]
		if e := in.ids.holders[key]; e != nil && e.problem == "" && e.digest() == p.digest {
			e.paired = true
			in.pairs[key] = p
			continue
		}
		problem, err := in.readStored(st)
		if err != nil {
			return err
		}
		if problem != nil {
			in.report.Problems = append(in.report.Problems, *problem)
			continue
		}
		in.recs[key] = st
	}
	return nil
}
