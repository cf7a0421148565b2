// Package fulltext owns the recall index of a zylos home: one derived
// SQLite FTS5 database, memory/.state/search.db, with a document for every
// record, reference entry, session-log line (or small group of lines),
// archive entry and C4 conversation row, and the ranked search over it
// that `search`, `records search` and prompt-time retrieval share.
//
// The index is a cache. It is rebuilt from the sources when missing,
// damaged or of another schema; it is brought up to date incrementally
// (files by size, modification time and inode, C4 rows by id watermark);
// and it never writes a memory file or c4.db, which it opens read-only.
package fulltext
