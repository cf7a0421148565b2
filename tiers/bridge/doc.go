// Package bridge keeps the markdown reference tier and the structured
// records of a zylos home in step: one memory, two views. Every entry of
// memory/reference/*.md (a decision, project or preference; in any other
// reference file, such as ideas.md, a note: a title and its text) is
// backed by one record under memory/records/, and the entry carries the record's id
// in an HTML comment the renderer writes on the line after its heading:
//
//	### [2026-03-01] Use SQLite for C4
//	<!-- id: use-sqlite-for-c4 -->
//	- **Decision:** ...
//
// The id survives a retitle and a move between files of the same kind;
// markdown renderers hide the comment. A record's team (where it came
// from, whether it is private, a conflict) shows in a team comment on the
// line after it, of which only the private mark is read back. The package owns the whole
// crossing: reading entries with their byte spans and ids (through the
// tiers entry parser), the field mapping between entries and records,
// rendering a record into its entry while keeping every other byte of the
// file, and ingest, which turns hand edits into records writes.
//
// Its interface is narrow: Ingest (records ingest, the PostToolUse hook,
// consolidation, the daily task), View (the records.View that records
// write keeps in step under its lock), ApplyConsolidation (consolidation's
// moves into the archive files, with the records following) and Findings
// (the consolidation report's entry findings, each with its record).
// Neither tiers nor records imports it.
package bridge
