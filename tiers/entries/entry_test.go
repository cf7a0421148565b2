package entries

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// want is the part of an entry a parser test checks.
type want struct {
	line          int
	kind          Kind
	title, date   string // date as YYYY-MM-DD or "YYYY-MM-DD HH:MM", "" for zero
	status, field string // field: "Name=value" that must be present
	problemPrefix string
}

func TestParseEntries(t *testing.T) {
	tests := []struct {
		name, file, src string
		want            []want
	}{
		{
			name: "decisions", file: "reference/decisions.md",
			src:  "# Decisions Log\n\nIntro.\n\n### [2025-10-01] Use Go\n- **Decision:** Go, `fast`\n  continued\n- **Context:** speed\n- **Status:** superseded by X\n",
			want: []want{{line: 5, kind: KindDecision, title: "Use Go", date: "2025-10-01", status: "superseded", field: "Decision=Go, `fast` continued"}},
		},
		{
			name: "impossible date", file: "reference/decisions.md",
			src:  "### [2026-13-45] Bad\n- **Decision:** x\n- **Status:** active\n",
			want: []want{{line: 1, kind: KindDecision, title: "Bad", status: "active", problemPrefix: `invalid heading date "2026-13-45"`}},
		},
		{
			name: "heading without fields or date", file: "reference/decisions.md",
			src:  "### Nothing here\n\nJust prose.\n",
			want: []want{{line: 1, kind: KindDecision, title: "Nothing here", problemPrefix: "heading lacks a [YYYY-MM-DD] date; no fields"}},
		},
		{
			name: "unknown status", file: "reference/decisions.md",
			src:  "### [2026-01-01] X\n- **Decision:** y\n- **Status:** maybe\n",
			want: []want{{line: 1, kind: KindDecision, title: "X", date: "2026-01-01", status: "maybe", problemPrefix: `unknown status "maybe"`}},
		},
		{
			name: "code block is not an entry", file: "reference/decisions.md",
			src:  "```\n### [2026-01-01] In code\n```\n### [2026-01-02] Real\n- **Decision:** d\n- **Status:** active\n",
			want: []want{{line: 4, kind: KindDecision, title: "Real", date: "2026-01-02", status: "active"}},
		},
		{
			name: "crlf", file: "reference/decisions.md",
			src:  "### [2026-01-01] Fine\r\n- **Decision**: colon outside\r\n- **Status:** archived\r\n",
			want: []want{{line: 1, kind: KindDecision, title: "Fine", date: "2026-01-01", status: "archived", field: "Decision=colon outside"}},
		},
		{
			name: "invalid utf-8", file: "reference/preferences.md",
			src:  "### Tone\n- **Value:** terse \xff\xfe\n- **Added:** 2026-01-01\n",
			want: []want{{line: 1, kind: KindPreference, title: "Tone", date: "2026-01-01", problemPrefix: "invalid UTF-8"}},
		},
		{
			name: "nested list is not a field", file: "reference/preferences.md",
			src:  "### Tone\n- **Value:** terse\n  - **Value:** nested\n- **Source:** stated\n",
			want: []want{{line: 1, kind: KindPreference, title: "Tone", field: "Value=terse"}},
		},
		{
			name: "duplicate field", file: "reference/preferences.md",
			src:  "### Tone\n- **Value:** a\n- **Value:** b\n",
			want: []want{{line: 1, kind: KindPreference, title: "Tone", field: "Value=a", problemPrefix: "field Value given twice"}},
		},
		{
			name: "projects take status from their section", file: "reference/projects.md",
			src: "# Projects\n\n## Active\n(No active projects yet.)\n### P1\n- **Status:** active\n- **Updated:** 2026-03-01\n\n## Completed\n### P2\n- **Updated:** 2025-12-01\n- **Notes:** done\n### P3\n- **Status:** completed\n- **Updated:** 2025-02-30\n",
			want: []want{
				{line: 5, kind: KindProject, title: "P1", date: "2026-03-01", status: "active"},
				{line: 10, kind: KindProject, title: "P2", date: "2025-12-01", status: "completed"},
				{line: 13, kind: KindProject, title: "P3", status: "completed", problemPrefix: `invalid Updated date "2025-02-30"`},
			},
		},
		{
			name: "project missing updated", file: "reference/projects.md",
			src:  "### P\n- **Status:** blocked\n",
			want: []want{{line: 1, kind: KindProject, title: "P", status: "blocked", problemPrefix: "missing field Updated"}},
		},
		{
			name: "session lines", file: "sessions/current.md",
			src: "# Session Log: 2026-03-14\n\n**09:30** - did a thing\n**9:31** - short\n**25:99** - bad\n**Note:** not an entry\n- **10:00** - in a list\n**11:00** no dash\n\n```\n**12:00** - code\n```\n",
			want: []want{
				{line: 3, kind: KindSessionLine, title: "did a thing", date: "2026-03-14 09:30"},
				{line: 4, kind: KindSessionLine, title: "short", date: "2026-03-14 09:31"},
				{line: 5, kind: KindSessionLine, title: "bad", problemPrefix: `invalid time "25:99"`},
				{line: 7, kind: KindSessionLine, title: "in a list", date: "2026-03-14 10:00"},
				{line: 8, kind: KindSessionLine, title: "no dash", date: "2026-03-14 11:00", problemPrefix: `missing " - "`},
			},
		},
		{
			name: "session date from file name", file: "sessions/2026-02-01.md",
			src:  "**08:00** - early\r\n",
			want: []want{{line: 1, kind: KindSessionLine, title: "early", date: "2026-02-01 08:00"}},
		},
		{
			name: "session header impossible date", file: "sessions/current.md",
			src:  "# Session Log: 2026-13-45\n\n**08:00** - x\n",
			want: []want{{line: 3, kind: KindSessionLine, title: "x", problemPrefix: `invalid session header date "2026-13-45"`}},
		},
		{
			name: "core sections", file: "core.md",
			src: "# Core Memory\n\nLast updated: (not yet)\n\n## Identity\nI am.\n\n## Pending\nNone yet.\n",
			want: []want{
				{line: 5, kind: KindCoreSection, title: "Identity"},
				{line: 8, kind: KindCoreSection, title: "Pending"},
			},
		},
		{
			name: "generic reference file", file: "reference/servers.md",
			src:  "# Servers\n### web-1\n- **IP:** 10.0.0.1\n### \n",
			want: []want{{line: 2, kind: KindGeneric, title: "web-1", field: "IP=10.0.0.1"}, {line: 4, kind: KindGeneric, problemPrefix: "empty heading"}},
		},
		{name: "not markdown", file: "reference/notes.txt", src: "### x\n"},
		{name: "empty", file: "reference/decisions.md", src: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.file, []byte(tt.src))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d entries, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				checkEntry(t, got[i], w)
			}
		})
	}
}

func checkEntry(t *testing.T, e Entry, w want) {
	t.Helper()
	if e.Line != w.line || e.Kind != w.kind || e.Title != w.title {
		t.Errorf("entry %s:%d %s %q, want line %d %s %q", e.File, e.Line, e.Kind, e.Title, w.line, w.kind, w.title)
	}
	if got := formatDate(e.Date); got != w.date {
		t.Errorf("%q: date %q, want %q", e.Title, got, w.date)
	}
	if w.status != "" && e.Status() != w.status {
		t.Errorf("%q: status %q, want %q", e.Title, e.Status(), w.status)
	}
	if k, v, ok := strings.Cut(w.field, "="); ok && e.Fields[k] != v {
		t.Errorf("%q: field %s = %q, want %q", e.Title, k, e.Fields[k], v)
	}
	if !strings.HasPrefix(e.Problem, w.problemPrefix) || (w.problemPrefix == "") != (e.Problem == "") {
		t.Errorf("%q: problem %q, want prefix %q", e.Title, e.Problem, w.problemPrefix)
	}
}

func formatDate(d time.Time) string {
	switch {
	case d.IsZero():
		return ""
	case d.Hour() == 0 && d.Minute() == 0:
		return d.Format(DateLayout)
	}
	return d.Format("2006-01-02 15:04")
}

// TestEntryTextCoversSource holds the invariant apply relies on: heading
// entries are disjoint byte ranges, each ending where the next begins or at
// a higher heading.
func TestEntryTextCoversSource(t *testing.T) {
	src := []byte("# D\n\n### [2026-01-01] A\n- **Decision:** a\n- **Status:** active\n\n### [2026-01-02] B\n- **Decision:** b\n- **Status:** archived\n\n## Later\n### [2026-01-03] C\n")
	entries := Parse("decisions.md", src)
	prev := 0
	for _, e := range entries {
		if e.start < prev || e.end > len(src) || e.start > e.end {
			t.Fatalf("entry %q range [%d,%d) overlaps or escapes", e.Title, e.start, e.end)
		}
		if !bytes.HasPrefix(src[e.start:e.end], []byte(e.Text)) {
			t.Errorf("entry %q: Text is not the start of its range", e.Title)
		}
		prev = e.end
	}
}
