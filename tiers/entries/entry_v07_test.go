package entries

import (
	"testing"
	"time"
)

// TestParseV07Formats: the entry formats of zylos-core v0.7.1 (a decision
// dated in a Date field, projects with its statuses and a placeholder
// Updated, preferences without a Value) parse without being malformed.
func TestParseV07Formats(t *testing.T) {
	cases := []struct {
		name, src string
		kind      Kind
		date      string // "" when undated
	}{
		{"reference/decisions.md", "# Decisions Log\n\n### Use SQLite for C4\n- **Date:** 2026-02-01\n- **Decided by:** owner\n- **Decision:** SQLite\n- **Context:** one file\n- **Status:** active\n- **Importance:** 2\n- **Type:** strategic\n", KindDecision, "2026-02-01"},
		{"reference/projects.md", "# Projects\n\n## Active\n\n### First Project\n- **Status:** planning\n- **Started:** (to be filled when the owner chooses)\n- **Updated:** (not yet)\n- **Description:** something useful\n- **Importance:** 1\n- **Type:** onboarding\n\n#### Suggested Task Types\n\n| Task | Difficulty |\n|------|-----------|\n| Reminder | easy |\n\n## Completed\n(None yet.)\n", KindProject, ""},
		{"reference/projects.md", "## Active\n\n### Installer\n- **Status:** paused\n- **Updated:** 2026-03-01\n", KindProject, "2026-03-01"},
		{"reference/projects.md", "## Completed\n\n### Old\n- **Status:** abandoned\n- **Updated:** 2026-01-01\n", KindProject, "2026-01-01"},
		{"reference/preferences.md", "# Shared Preferences\n\n### Reply in English\n- **Date observed:** 2026-02-03\n- **Applies to:** all\n- **Importance:** 2\n- **Type:** procedural\n", KindPreference, "2026-02-03"},
	}
	for _, tc := range cases {
		entries := Parse(tc.name, []byte(tc.src))
		if len(entries) != 1 {
			t.Fatalf("%s: %d entries: %+v", tc.name, len(entries), entries)
		}
		e := entries[0]
		if e.Kind != tc.kind || e.Problem != "" {
			t.Errorf("%s %q: kind %s, problem %q", tc.name, e.Title, e.Kind, e.Problem)
		}
		if got := dateString(e.Date); got != tc.date {
			t.Errorf("%s %q: date %q, want %q", tc.name, e.Title, got, tc.date)
		}
	}
	// A real error is still one: an impossible date in the Date field.
	e := Parse("reference/decisions.md", []byte("### X\n- **Date:** 2026-13-45\n- **Decision:** y\n- **Status:** active\n"))[0]
	if e.Problem == "" {
		t.Error("impossible Date field not reported")
	}
}

func dateString(d time.Time) string {
	if d.IsZero() {
		return ""
	}
	return d.Format("2006-01-02")
}
