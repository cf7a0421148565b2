package recall

import "github.com/zylos/zylos-memory/tiers/records"

// injectSafe makes a title or tag safe to put into the agent's context: on
// top of the write-side sanitizing (a record written by hand or by an older
// tool never went through it) it is truncated, then XML-escaped so it can
// neither close the <memory-context> block nor open a tag of its own.
func injectSafe(s string) string {
	return records.EscapeXML(records.Truncate(records.SanitizeTitle(s), records.TitleMax))
}

// injectSafeTag is injectSafe for one tag of an index line.
func injectSafeTag(s string) string { return records.EscapeXML(records.SanitizeTag(s)) }

// injectSafePath keeps a cited path on one line and inside its block.
func injectSafePath(s string) string {
	return records.EscapeXML(records.SanitizeTitle(s))
}
