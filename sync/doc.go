// Package c4sync owns access to zylos's C4 comm-bridge database
// (comm-bridge/c4.db, shared with the Node C4) and the memory sync pipeline
// built on it: fetching conversation ranges, counting what is unsummarized,
// the session-start and threshold texts, queueing inbound messages, and
// checkpoints that only ever advance over ranges a sync has fetched.
//
// The directory is sync/ (the repository layout names it so); the package
// is called c4sync so that it never shadows the standard library's sync.
//
// Read paths open the database read-only (mode=ro): they cannot create the
// file, a -wal file, or change a byte. Write paths set busy_timeout and
// check that journal_mode really is WAL, as the Node C4 expects.
package c4sync
