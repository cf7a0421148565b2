package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/journal"
	"github.com/zylos/zylos-memory/tiers/records"
)

type statusInput struct{}

// lastChanges is how many changes memory_status shows.
const lastChanges = 5

// status is the status command's memory report, the records' health
// report (records index --health), the C4 backlog and the last changes
// from the journal.
func (h call) status(ctx context.Context, _ statusInput) (string, error) {
	var b strings.Builder
	b.WriteString("Memory files and budgets:\n")
	if err := tiers.LayoutStatus(h.Layout, &b); err != nil {
		fmt.Fprintf(&b, "cannot read the memory files: %v\n", err)
	}
	b.WriteString("\nRecords: ")
	if _, err := os.Stat(h.Layout.RecordsDir()); errors.Is(err, os.ErrNotExist) {
		b.WriteString("none yet\n")
	} else if _, err := records.IndexHealth(h.Layout.RecordsDir(), h.Now(), &b, func(w string) { h.logf("%s", w) }); err != nil {
		fmt.Fprintf(&b, "cannot read them: %v\n", err)
	}
	b.WriteString("\nConversation log (C4): " + h.backlog() + "\n")
	changes, err := h.journalLog(ctx, journal.Query{Limit: lastChanges})
	if err != nil {
		changes = err.Error() + "\n"
	}
	b.WriteString("\nLast changes:\n" + changes)
	return b.String(), nil
}

// backlog says how many conversations wait for a memory sync.
func (h call) backlog() string {
	if _, err := os.Stat(h.Layout.C4DB()); errors.Is(err, os.ErrNotExist) {
		return "no database yet"
	}
	db, err := c4sync.Open(h.Layout.C4DB())
	if err != nil {
		return "cannot open: " + err.Error()
	}
	defer db.Close()
	r, err := db.Unsummarized()
	if err != nil {
		return "cannot read: " + err.Error()
	}
	if r.Count == 0 {
		return "every conversation is summarized"
	}
	line := fmt.Sprintf("%d conversations unsummarized (ids %d-%d)", r.Count, *r.Begin, *r.End)
	if r.Count > int64(h.Home.Settings.SyncThreshold) {
		line += ", over the sync threshold: run the memory sync"
	}
	return line
}
