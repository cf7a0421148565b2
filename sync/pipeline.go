package c4sync

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/tiers"
)

// Pipeline is the memory sync flow of Memory Architecture v2 (rotate, fetch, update the
// memory files, checkpoint) over one memory tree and one C4 database, made
// safe: a checkpoint is only created by an explicit call after the memory
// was written, and never over conversations that were not fetched.
type Pipeline struct {
	Layout tiers.Layout
	DBPath string
	Now    time.Time // in the memory tree's timezone
}

// ErrUnsafeCheckpoint reports a checkpoint the pipeline refuses to create.
var ErrUnsafeCheckpoint = errors.New("refusing checkpoint")

// ledger keeps the fetched ranges under memory/.state/.
func (p Pipeline) ledger() Ledger {
	return Ledger{Path: filepath.Join(p.Layout.StateDir(), "c4-fetched.json")}
}

func (p Pipeline) dbKey() string {
	if abs, err := filepath.Abs(p.DBPath); err == nil {
		return abs
	}
	return p.DBPath
}

// Fetch prints the range as `c4 fetch` does and records what was read.
func (p Pipeline) Fetch(begin, end int64) (string, error) {
	text, last, err := p.read(begin, end)
	if err != nil {
		return "", err
	}
	return text, p.record(begin, last)
}

// FetchUnsummarized prints what `c4 fetch --unsummarized` does and records
// what was read.
func (p Pipeline) FetchUnsummarized() (string, error) {
	db, err := Open(p.DBPath)
	if err != nil {
		return "", err
	}
	defer db.Close()
	text, begin, last, err := db.fetchUnsummarized()
	if err != nil {
		return "", err
	}
	return text, p.record(begin, last)
}

func (p Pipeline) read(begin, end int64) (text string, last int64, err error) {
	db, err := Open(p.DBPath)
	if err != nil {
		return "", 0, err
	}
	defer db.Close()
	return db.fetch(begin, end)
}

// record notes [begin, last] as fetched; last is 0 when nothing was.
func (p Pipeline) record(begin, last int64) error {
	if last == 0 {
		return nil
	}
	return p.ledger().Record(p.dbKey(), begin, last)
}

// Run rotates the session log, fetches the range, and lists the memory
// files to update and the checkpoint command to run once they are written.
// The database is read before the rotation, so a bad database changes
// nothing, and the range is recorded only once everything else succeeded.
func (p Pipeline) Run(begin, end int64) (string, error) {
	text, last, err := p.read(begin, end)
	if err != nil {
		return "", err
	}
	steps, err := tiers.Rotate(p.Layout, p.Now)
	if err != nil {
		return "", err
	}
	if err := p.record(begin, last); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, m := range steps.Messages(p.Layout.Kind()) {
		b.WriteString(m + "\n")
	}
	b.WriteString(text)
	b.WriteString("\n[Memory Files to Update]\n")
	for _, f := range p.Layout.SyncTargets() {
		b.WriteString(f + "\n")
	}
	b.WriteString("\n" + p.nextStep(begin) + "\n")
	return b.String(), nil
}

// nextStep names the checkpoint to create after the memory files are
// updated: up to the last conversation fetched without a gap.
func (p Pipeline) nextStep(begin int64) string {
	gap, open, err := p.ledger().Unfetched(p.dbKey(), begin, 1<<62)
	if err != nil || !open || gap <= begin {
		return "[Next] Nothing was fetched; no checkpoint to create."
	}
	return fmt.Sprintf(`[Next] After updating the files: zylos-memory sync checkpoint %d --summary "<~200 characters: what was extracted>"`, gap-1)
}

// Checkpoint creates the checkpoint up to end, refusing an end beyond the
// newest conversation, below the previous checkpoint, or past a range that
// was never fetched. What it covered leaves the ledger.
func (p Pipeline) Checkpoint(end int64, summary *string, now func() time.Time) (Created, error) {
	db, err := OpenWrite(p.DBPath)
	if err != nil {
		return Created{}, err
	}
	defer db.Close()
	db.SetClock(now)
	created, err := db.createCheckpoint(end, summary, p.vet)
	if err != nil {
		return Created{}, err
	}
	return created, p.ledger().Forget(p.dbKey(), end)
}

func (p Pipeline) vet(tx *sql.Tx, start, end int64) error {
	var newest sql.NullInt64
	if err := tx.QueryRow(`SELECT MAX(id) FROM conversations`).Scan(&newest); err != nil {
		return fmt.Errorf("read newest conversation: %w", err)
	}
	if end > newest.Int64 {
		return fmt.Errorf("%w: end id %d is beyond the newest conversation (%d)", ErrUnsafeCheckpoint, end, newest.Int64)
	}
	gap, open, err := p.ledger().Unfetched(p.dbKey(), start, end)
	if err != nil {
		return err
	}
	if open {
		return fmt.Errorf("%w: conversations from id %s to %d were never fetched (run: zylos-memory sync run --begin %s --end %d)",
			ErrUnsafeCheckpoint, strconv.FormatInt(gap, 10), end, strconv.FormatInt(gap, 10), end)
	}
	return nil
}
