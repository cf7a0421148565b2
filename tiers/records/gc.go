package records

import (
	"fmt"
	"io"
	"os"
	"time"
)

// GarbageCollect handles retired records past delete.grace_period_days:
// with delete.archive_retired (the default) they become archived (kept
// for good, out of the index); otherwise their files are deleted. The
// index is rebuilt in the same lock, so it never points at a purged file.
func GarbageCollect(root string, now time.Time, out io.Writer, warn func(string)) error {
	cfg := configOrDefault(root, warn)
	lock, err := acquireWriteLock(root, warn)
	if err != nil {
		return err
	}
	defer lock.Release()
	sweepFolders(root, Categories...)
	recs, err := Scan(root, false, warn)
	if err != nil {
		return err
	}
	grace := time.Duration(cfg.GracePeriodDays) * 24 * time.Hour
	done := 0
	for _, s := range recs {
		if s.Record.Status() != StatusRetired {
			continue
		}
		shown := IndexPath(root, s.Abs)
		at, err := parseStamp(s.Record.RetiredAt)
		if err != nil {
			fmt.Fprintf(out, "SKIP %s: invalid or missing retired_at %q\n", shown, s.Record.RetiredAt)
			continue
		}
		if now.Sub(at) < grace {
			continue
		}
		if err := collect(root, s, cfg.ArchiveRetired, now); err != nil {
			fmt.Fprintf(out, "ERROR %s: %v\n", shown, err)
			continue
		}
		verb := "DELETED"
		if cfg.ArchiveRetired {
			verb = "ARCHIVED"
		}
		fmt.Fprintf(out, "%s %s (retired %s)\n", verb, shown, s.Record.RetiredAt)
		done++
	}
	n, err := RebuildIndex(root, warn)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Garbage collected %d record(s) past the %d-day grace period; index.md rebuilt with %d entries\n",
		done, cfg.GracePeriodDays, n)
	return nil
}

func collect(root string, s Scanned, archive bool, now time.Time) error {
	if !archive {
		return os.Remove(s.Abs)
	}
	w := &writer{
		WriteOptions: WriteOptions{Root: root, Now: now},
		t:            target{abs: s.Abs, category: s.Record.Category, shown: IndexPath(root, s.Abs)},
	}
	_, d, err := w.readStored()
	if err != nil {
		return err
	}
	d["record_status"], d["archived_at"], d["updated_at"] = StatusArchived, stamp(now), stamp(now)
	d["archived_reason"] = "Garbage collected after the retirement grace period"
	d.appendChange(Change{Date: stamp(now), Summary: "Archived by garbage collection"})
	data, err := d.bytes()
	if err != nil {
		return err
	}
	return w.store(d, data, "")
}
