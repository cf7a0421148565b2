package entries

import (
	"bytes"
	"testing"
)

// FuzzParseEntries holds that parsing never panics and that every entry
// cites a real line of its file, for every entry format.
func FuzzParseEntries(f *testing.F) {
	seeds := []string{
		"### [2026-01-01] A\n- **Decision:** a\n- **Status:** active\n",
		"## Completed\n### P\n- **Status:** completed\n- **Updated:** 2026-13-45\n",
		"# Session Log: 2026-03-14\n**09:30** - x\n- **25:99** - y\r\n",
		"### \xff\n- **Value**: \x00\n  - **Value:** nested\n",
		"```\n### x\n```\n> ### quoted\n<div>\n### html\n</div>\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	files := []string{"reference/decisions.md", "reference/projects.md", "reference/preferences.md", "sessions/current.md", "core.md", "reference/other.md"}
	f.Fuzz(func(t *testing.T, src string) {
		lines := bytes.Count([]byte(src), []byte{'\n'}) + 1
		for _, name := range files {
			prev := 0
			for _, e := range Parse(name, []byte(src)) {
				if e.Line < 1 || e.Line > lines {
					t.Fatalf("%s: entry %q at line %d of %d", name, e.Title, e.Line, lines)
				}
				if e.start < prev || e.end > len(src) || e.start > e.end {
					t.Fatalf("%s: entry %q range [%d,%d) invalid after %d", name, e.Title, e.start, e.end, prev)
				}
				prev = e.end
			}
		}
	})
}
