package tiers

// JSON is the findings as an ordered object, so that `consolidate
// --entries` can append them to the Node-format report as its "entries"
// field and print both with the report's own JSON writer.
func (f EntryFindings) JSON() JSObject {
	return JSObject{
		{"staleDecisions", entryRefsJSON(f.StaleDecisions)},
		{"completedProjects", entryRefsJSON(f.CompletedProjects)},
		{"conflictingPreferences", conflictsJSON(f.ConflictingPreferences)},
		{"malformed", malformedJSON(f.Malformed)},
	}
}

func entryRefsJSON(refs []EntryRef) JSArray {
	out := JSArray{}
	for _, r := range refs {
		out = append(out, r.Backing.appendTo(JSObject{
			{"file", r.File}, {"line", r.Line}, {"title", r.Title}, {"status", r.Status},
			{"date", r.Date}, {"ageDays", r.AgeDays}, {"archiveTo", r.ArchiveTo},
		}))
	}
	return out
}

func conflictsJSON(conflicts []PreferenceConflict) JSArray {
	out := JSArray{}
	for _, c := range conflicts {
		values := JSArray{}
		for _, v := range c.Values {
			value := JSObject{{"file", v.File}, {"line", v.Line}, {"value", v.Value}}
			if v.Added != "" {
				value = append(value, JSField{"added", v.Added})
			}
			values = append(values, v.Backing.appendTo(value))
		}
		out = append(out, JSObject{{"name", c.Name}, {"values", values}})
	}
	return out
}

func malformedJSON(list []Malformed) JSArray {
	out := JSArray{}
	for _, m := range list {
		out = append(out, JSObject{
			{"file", m.File}, {"line", m.Line}, {"kind", string(m.Kind)},
			{"title", m.Title}, {"problem", m.Problem},
		})
	}
	return out
}

// appendTo adds the record fields that are set to an entry's object.
func (b Backing) appendTo(o JSObject) JSObject {
	if b.Record != "" {
		o = append(o, JSField{"record", b.Record})
	}
	if b.Ingest != "" {
		o = append(o, JSField{"ingest", b.Ingest})
	}
	return o
}
