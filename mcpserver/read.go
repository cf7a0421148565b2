package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/zylos/zylos-memory/internal/regfile"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/journal"
	"github.com/zylos/zylos-memory/tiers/records"
)

type readInput struct {
	Ref string `json:"ref" jsonschema:"a citation (memory/reference/decisions.md:12), a path under memory/, a record id, or c4:ID"`
}

// maxRead bounds the text of a whole file memory_read answers: past it
// the answer says how to read on.
const maxRead = 64 << 10

// maxRecordRead bounds a record memory_read answers whole (a record cannot
// be cut: an update needs its hash): twice what a save may store, room
// for the record's own fields and its change log, so that every record a
// save made is read.
const maxRecordRead = 2 * maxSave

// historyInRead is how many changes memory_read shows.
const historyInRead = 5

func (h call) read(ctx context.Context, in readInput) (string, error) {
	r, err := h.resolve(in.Ref)
	if err != nil {
		return "", err
	}
	if r.c4 > 0 {
		return h.conversation(r.c4)
	}
	var b strings.Builder
	switch {
	case r.isRecord():
		err = h.readRecord(&b, r)
	case r.line > 0:
		err = h.readEntry(&b, r)
	default:
		err = h.readFile(&b, r)
	}
	if err != nil {
		return "", err
	}
	changes, err := h.journalLog(ctx, journal.Query{Path: journalPath(r.rel), Limit: historyInRead})
	if err != nil {
		return "", err
	}
	b.WriteString("\nRecent history:\n" + changes)
	return b.String(), nil
}

// readRecord shows a record as stored, with the hash an update gives
// back, then the markdown entry that shows it.
func (h call) readRecord(b *strings.Builder, r ref) error {
	data, err := h.readRecordOnly(b, r)
	if err != nil {
		return err
	}
	rec, err := records.ParseRecord(data)
	if err != nil {
		fmt.Fprintf(b, "\nThis record does not parse: %v\n", err)
		return nil
	}
	if e, file, ok := h.entryOfRecord(rec.ID); ok {
		fmt.Fprintf(b, "\nEntry %s:%d\n%s\n", file, e.Line, strings.TrimRight(e.Text, "\n"))
	}
	return nil
}

// readEntry shows the entry a citation points into (the last one starting
// at or before the line), with its record when it has one; a line no
// entry holds shows the file from there.
func (h call) readEntry(b *strings.Builder, r ref) error {
	data, err := tiers.ReadTierFile(r.abs)
	if err != nil {
		return fmt.Errorf("read %s: %w", r.rel, err)
	}
	if lines := strings.Count(string(data), "\n") + 1; r.line > lines {
		return fmt.Errorf("%s has %d lines; give a line from 1 to %d", r.rel, lines, lines)
	}
	ents := entries.Parse(r.abs, data)
	var hit *entries.Entry
	for i := range ents {
		if ents[i].Line <= r.line && (hit == nil || ents[i].Line >= hit.Line) {
			hit = &ents[i]
		}
	}
	if hit == nil || hit.Kind == entries.KindSessionLine && hit.Line != r.line {
		return h.readFileFrom(b, r)
	}
	fmt.Fprintf(b, "Entry %s:%d\n%s\n", r.rel, hit.Line, strings.TrimRight(hit.Text, "\n"))
	if hit.Problem != "" {
		fmt.Fprintf(b, "This entry is malformed: %s\n", hit.Problem)
	}
	if id, _ := entries.Identity(hit.Text); id != "" {
		if rec, err := h.recordByID(id); err == nil {
			b.WriteString("\n")
			_, err := h.readRecordOnly(b, rec)
			return err
		}
	}
	return nil
}

// readRecordOnly shows a record's file as stored, with its hash, and
// answers its bytes.
func (h call) readRecordOnly(b *strings.Builder, r ref) ([]byte, error) {
	data, err := regfile.ReadFileLimit(r.abs, maxRecordRead)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.rel, err)
	}
	fmt.Fprintf(b, "Record %s\nhash: %s (give it to memory_save with target to update this record)\n", r.rel, records.Hash(data))
	b.Write(data)
	return data, nil
}

// readFile shows a whole memory file, up to maxRead.
func (h call) readFile(b *strings.Builder, r ref) error {
	r.line = 1
	return h.readFileFrom(b, r)
}

// readFileFrom shows a file from r.line on, up to maxRead bytes; a longer
// rest is cut at a line, saying where to read on.
func (h call) readFileFrom(b *strings.Builder, r ref) error {
	data, err := regfile.ReadFileLimit(r.abs, entries.MaxFileSize)
	if err != nil {
		return fmt.Errorf("read %s: %w", r.rel, err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if r.line > len(lines) {
		return fmt.Errorf("%s has %d lines; give a line from 1 to %d", r.rel, len(lines), len(lines))
	}
	fmt.Fprintf(b, "File %s from line %d\n", r.rel, r.line)
	n := 0
	for i := r.line - 1; i < len(lines); i++ {
		if n+len(lines[i]) > maxRead {
			fmt.Fprintf(b, "\n[cut at %d bytes: read on with ref %s:%d]\n", maxRead, r.rel, i+1)
			return nil
		}
		b.WriteString(lines[i])
		n += len(lines[i])
	}
	return nil
}

// conversation is one C4 conversation as c4 fetch prints it.
func (h call) conversation(id int64) (string, error) {
	db, err := c4sync.Open(h.Layout.C4DB())
	if err != nil {
		return "", fmt.Errorf("open the conversation log: %w", err)
	}
	defer db.Close()
	text, err := db.Fetch(id, id)
	if err != nil {
		return "", fmt.Errorf("read c4:%d: %w", id, err)
	}
	if strings.Contains(text, "No conversations in this range.") {
		return "", fmt.Errorf("no conversation c4:%d; find it with memory_search", id)
	}
	return text, nil
}
