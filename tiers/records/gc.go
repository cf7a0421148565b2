package records

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// GarbageCollect handles retired records past delete.grace_period_days:
// with delete.archive_retired (the default) they become archived (kept
// for good, out of the index); otherwise their files are deleted. The
// index is rebuilt in the same lock, so it never points at a purged file.
func GarbageCollect(root string, now time.Time, out io.Writer, warn func(string)) error {
	cfg := configOrDefault(root, warn)
	lock, err := AcquireWriteLock(root, warn)
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
	var done, problems []string
	for _, s := range recs {
		if s.Record.Status() != StatusRetired {
			continue
		}
		shown := IndexPath(root, s.Abs)
		if s.Record.RetiredAt == "" {
			problems = append(problems, "SKIP "+shown+": missing retired_at timestamp")
			continue
		}
		at, err := parseStamp(s.Record.RetiredAt)
		if err != nil {
			problems = append(problems, "SKIP "+shown+": invalid retired_at timestamp")
			continue
		}
		if now.Sub(at) < grace {
			continue
		}
		if err := collect(root, s, cfg.ArchiveRetired, now); err != nil {
			problems = append(problems, fmt.Sprintf("ERROR %s: %v", shown, err))
			continue
		}
		verb := "DELETED"
		if cfg.ArchiveRetired {
			verb = "ARCHIVED"
		}
		done = append(done, fmt.Sprintf("%s %s (retired %d days ago)", verb, shown, int(now.Sub(at).Hours()/24)))
	}
	n, err := RebuildIndex(root, warn)
	if err != nil {
		return err
	}
	// The plugin's report, with the archiving said in so many words: a
	// plugin user expects DELETED and must see why the file is still there.
	fmt.Fprintf(out, "Garbage Collection (grace period: %d days)\n%s\n", cfg.GracePeriodDays, strings.Repeat("=", 50))
	switch {
	case len(done) == 0:
		fmt.Fprintln(out, "\nNo retired memories past grace period.")
	case cfg.ArchiveRetired:
		fmt.Fprintf(out, "\nArchived %d file(s) instead of deleting them (delete.archive_retired is true; "+
			"set it to false to delete):\n", len(done))
	default:
		fmt.Fprintf(out, "\nDeleted %d file(s):\n", len(done))
	}
	for _, line := range done {
		fmt.Fprintf(out, "  %s\n", line)
	}
	if len(problems) > 0 {
		fmt.Fprintf(out, "\nWarnings/errors (%d):\n", len(problems))
		for _, line := range problems {
			fmt.Fprintf(out, "  %s\n", line)
		}
	}
	fmt.Fprintf(out, "\nindex.md rebuilt with %d entries.\n", n)
	return nil
}

func collect(root string, s Scanned, archive bool, now time.Time) error {
	if !archive {
		return os.Remove(s.Abs)
	}
	w := &writer{
		WriteRequest: WriteRequest{Target: targetAt(root, s.Abs, s.Record.Category), Now: now,
			Reason: "Garbage collected after the retirement grace period"},
	}
	_, d, err := w.readStored()
	if err != nil {
		return err
	}
	w.settle(d, StatusArchived, StatusRetired, "Archived")
	data, err := d.bytes()
	if err != nil {
		return err
	}
	return w.store(d, data, "")
}
