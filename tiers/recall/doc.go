// Package recall finds what memory already knows about a piece of text: the
// retrieval that a UserPromptSubmit hook injects into the agent's context,
// the candidate selection that decides whether new information creates,
// updates or deletes a record, and the on-demand search that also reaches
// retired records and the archive.
//
// Retrieval and search rank with the recall index (package fulltext): one
// query over records, reference entries, session logs, the archive and C4,
// so a prompt never costs a read of every file. Candidate selection keeps
// the plugin's scorer over index.md (title and tags, Score), whose numbers
// its callers compare against the plugin's thresholds.
package recall
