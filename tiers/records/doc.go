// Package records owns the structured JSON layer of the memory: one JSON
// file per record under a records root (default $ZYLOS_DIR/memory/records),
// one folder per category, an index.md of the active records, and
// memory-config.json.
//
// It holds everything that reads or changes that tree: categories and
// folders, the config and its defaults, root resolution, the index line
// format, the embedded JSON Schemas and Validate, title and tag
// sanitization, the lock, and the write, draft, enforce and index
// operations. Retrieval (records/recall) and the write guards
// (records/guard) build on these exported pieces.
package records
