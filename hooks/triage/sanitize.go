package triage

import (
	"strings"

	"github.com/zylos/zylos-memory/tiers/records"
)

// maxSnippet is the longest snippet, in characters, quoted back to the agent.
const maxSnippet = 120

// sanitizeSnippet makes transcript text safe to quote inside the hook's
// answer: no control or invisible characters (which could hide
// instructions), no backticks, no markup that could close the
// <triage_data> block, at most maxSnippet characters. It cuts before
// escaping so an entity is never cut in half.
func sanitizeSnippet(s string) string {
	s = strings.ReplaceAll(visible(s), "`", "")
	return records.EscapeXML(records.Truncate(s, maxSnippet))
}

// escapeLine makes one transcript line safe to quote in a context file.
func escapeLine(s string) string { return records.EscapeXML(visible(s)) }

// visible is s with invalid UTF-8 and invisible characters dropped and
// index markers defused, the same cleaning records apply to titles.
func visible(s string) string {
	return records.SanitizeTitle(strings.ToValidUTF8(s, ""))
}
