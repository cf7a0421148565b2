// Package recall finds what memory already knows about a piece of text: the
// retrieval that a UserPromptSubmit hook injects into the agent's context,
// the candidate selection that decides whether new information creates,
// updates or deletes a record, and the on-demand search that also reaches
// retired records and the archive.
//
// Records are scored from index.md alone (title, tags, path), so a prompt
// never costs a read of every record: only the best twenty are opened for the
// retired check and the recency bonus. Entries of the markdown reference tier
// are parsed and scored the same way and cited as path#Lline.
package recall
