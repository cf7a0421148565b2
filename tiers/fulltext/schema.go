package fulltext

// schemaVersion changes whenever the schema or what a document holds
// changes: an index of another version is rebuilt, never migrated.
const schemaVersion = "4"

// schemaSQL is the index. docs holds each document and what cites it;
// fts indexes its title, tags and body (external content: the text is
// stored once, in docs), and the pairs of CJK letters of all three (cjk,
// see cjk.go; "" for a document with none), which are not stored but
// computed by the view fts reads its content from (cjk_pairs, a function
// every connection of the index has, called only for the documents
// has_cjk marks: a call from SQLite into Go for each of a million rows
// made a build a third slower). files and dirs remember what was indexed, so an
// update reads only what changed (a log's digest is the CRC-32C of its
// bytes up to offset: a log that grew is an append only when they are
// unchanged); meta holds the version and the C4 watermark.
const schemaSQL = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
  inode INTEGER NOT NULL, offset INTEGER NOT NULL, line INTEGER NOT NULL, day TEXT NOT NULL,
  digest INTEGER NOT NULL);
CREATE TABLE dirs(path TEXT PRIMARY KEY, mtime INTEGER NOT NULL);
CREATE TABLE docs(id INTEGER PRIMARY KEY, path TEXT NOT NULL, tier TEXT NOT NULL,
  line INTEGER NOT NULL, day TEXT NOT NULL, status TEXT NOT NULL, category TEXT NOT NULL,
  title TEXT NOT NULL, tags TEXT NOT NULL, body TEXT NOT NULL, has_cjk INTEGER NOT NULL);
CREATE INDEX docs_path ON docs(path);
CREATE VIEW docs_text AS SELECT id, path, line, title, tags, body,
  CASE WHEN has_cjk THEN cjk_pairs(title, tags, body) ELSE '' END AS cjk FROM docs;
CREATE VIRTUAL TABLE fts USING fts5(title, tags, body, cjk, content='docs_text', content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2');
`

// Tiers a document belongs to, as --tier names them.
const (
	TierRecords   = "records"
	TierReference = "reference"
	TierSessions  = "sessions"
	TierArchive   = "archive"
	TierC4        = "c4"
)

// Tiers are every tier, in the order search lists them in its help.
var Tiers = []string{TierSessions, TierReference, TierRecords, TierArchive, TierC4}

// c4Path is the docs.path of C4 rows; their line is the row id.
const c4Path = "c4"

// Statuses of a document that search leaves out unless asked.
const (
	statusActive   = "active"
	statusRetired  = "retired"
	statusArchived = "archived"
)
