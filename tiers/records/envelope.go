package records

// SchemaVersion is the schema_version every record is written with.
const SchemaVersion = "1.0"

// NewDocument is the envelope of a new record, for a writer that builds
// its document itself (the bridge, from an entry): the schema version, its
// category, id and title, created and updated at now (RFC 3339), no
// change yet and never updated. The caller adds tags, related_files, the
// content and the first change (AddChange).
func NewDocument(category, id, title, now string) map[string]any {
	return map[string]any{
		"schema_version": SchemaVersion,
		"category":       category,
		"id":             id,
		"title":          title,
		"created_at":     now,
		"updated_at":     now,
		"changes":        []any{},
		"times_updated":  0,
	}
}

// AddChange appends one entry to the change log of a record document
// (a decoded record, or one NewDocument started): date (RFC 3339) and
// summary. The log is append-only; a write keeps its newest ChangesCap.
func AddChange(d map[string]any, date, summary string) {
	d["changes"] = append(doc(d).list("changes"), map[string]any{"date": date, "summary": summary})
}

// AddChangeKeeping appends a change that keeps a value: a text set
// aside (field "team.conflict", old the text) stays in the log.
func AddChangeKeeping(d map[string]any, date, summary, field string, old any) {
	d["changes"] = append(doc(d).list("changes"), map[string]any{"date": date, "summary": summary, "field": field, "old_value": old})
}

// Restored is old, a record's document as it was, put back with the
// change log the record has now (cur's: the log is append-only) and one
// more entry saying why.
func Restored(old, cur map[string]any, date, why string) map[string]any {
	old["changes"] = cur["changes"]
	AddChange(old, date, why)
	return old
}
