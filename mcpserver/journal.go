package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/tiers/journal"
)

// The answers of a home whose memory has no journal to read.
const (
	noJournal  = "no journal in this home (memory/ is not a git repository yet): no history to show\n"
	journalOff = "no journal in this home (the journal is off; `zylos-memory init --journal=true` turns it on): no history to show\n"
)

// journalTimeout bounds a read of the journal.
const journalTimeout = 5 * time.Second

// journalLog is the changes q selects, read with the history command's
// own journal.History, one line each, newest first: short rev, time,
// source, session, tool, command, summary, +added -removed.
func (h call) journalLog(ctx context.Context, q journal.Query) (string, error) {
	j := h.Journal()
	if j.Off() {
		return journalOff, nil
	}
	ctx, cancel := context.WithTimeout(ctx, journalTimeout)
	defer cancel()
	entries, err := j.History(ctx, q)
	if errors.Is(err, journal.ErrNoHistory) {
		return noJournal, nil
	}
	if err != nil {
		return "", fmt.Errorf("read the memory journal: %w", err)
	}
	if len(entries) == 0 {
		return "no changes recorded\n", nil
	}
	loc, err := h.Layout.Location()
	if err != nil {
		loc = time.UTC
	}
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%.10s %s", e.Rev, e.Time.In(loc).Format(time.RFC3339))
		for _, f := range [][2]string{{"source", e.Source}, {"session", e.Session}, {"tool", e.Tool}, {"command", e.Command}} {
			if f[1] != "" {
				fmt.Fprintf(&b, " %s=%s", f[0], f[1])
			}
		}
		fmt.Fprintf(&b, " %s +%d -%d\n", e.Summary, e.Added, e.Removed)
	}
	return b.String(), nil
}

// journalPath is a path from the home (memory/…) as the journal names it.
func journalPath(rel string) string { return strings.TrimPrefix(rel, "memory/") }

type historyInput struct {
	Ref     string `json:"ref,omitempty" jsonschema:"the memory whose changes to show: a citation, path, record id or entry id; empty: all"`
	Session string `json:"session,omitempty" jsonschema:"only the changes of this Claude Code session id"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most changes, default 20, at most 200"`
}

func (h call) history(ctx context.Context, in historyInput) (string, error) {
	q := journal.Query{Session: strings.TrimSpace(in.Session), Limit: in.Limit}
	switch {
	case q.Limit < 0:
		return "", errors.New("limit must be 0 or more")
	case q.Limit == 0:
		q.Limit = 20
	}
	q.Limit = min(q.Limit, 200)
	if ref := strings.TrimSpace(in.Ref); ref != "" {
		if strings.HasPrefix(ref, "c4:") {
			return "", fmt.Errorf("ref %q: a conversation has no history; give a memory path or record id", in.Ref)
		}
		if i := strings.LastIndexByte(ref, ':'); i > 0 {
			if _, err := strconv.Atoi(ref[i+1:]); err == nil {
				ref = ref[:i] // a citation's file
			}
		}
		// As the history command reads it: a path (kept or deleted), a
		// record id or a reference entry id.
		if err := h.Journal().Select(&q, ref, ""); err != nil {
			return "", fmt.Errorf("ref %q: %w; give a path under memory/, a record id or an entry id", in.Ref, err)
		}
	}
	return h.journalLog(ctx, q)
}
