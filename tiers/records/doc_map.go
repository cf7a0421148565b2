package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// doc is a record as a generic JSON object. Writes work on docs rather
// than Record so fields the schema would reject are still seen (and
// reported) instead of silently dropped by decoding.
type doc map[string]any

// decodeDoc parses a JSON object, keeping numbers exact (json.Number).
func decodeDoc(data []byte) (doc, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON object")
	}
	d := doc(m)
	dropNullOptionals(d)
	return d, nil
}

func (d doc) str(key string) string {
	s, _ := d[key].(string)
	return s
}

func (d doc) status() string {
	if s := d.str("record_status"); s != "" {
		return s
	}
	return StatusActive
}

func (d doc) number(key string) (float64, bool) {
	switch v := d[key].(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	case int:
		return float64(v), true
	}
	return 0, false
}

// strings returns a list field's string items (others skipped).
func (d doc) strings(key string) []string {
	list, _ := d[key].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (d doc) list(key string) []any {
	l, _ := d[key].([]any)
	return l
}

func (d doc) content() map[string]any {
	c, _ := d["content"].(map[string]any)
	return c
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// appendChange adds a changes[] entry and keeps only the newest
// ChangesCap entries (FIFO overflow).
func (d doc) appendChange(c Change) {
	d.logChange(c)
	d.capChanges()
}

// logChange adds a changes[] entry without the FIFO cap, for an update
// whose "at least one new entry" check must count it before the cap
// drops the oldest ones.
func (d doc) logChange(c Change) {
	entry := map[string]any{"date": c.Date, "summary": Truncate(c.Summary, 300)}
	if c.Field != "" {
		entry["field"] = c.Field
		entry["old_value"] = c.OldValue
		entry["new_value"] = c.NewValue
	}
	d["changes"] = append(d.list("changes"), entry)
}

// capChanges keeps only the newest ChangesCap changes[] entries.
func (d doc) capChanges() {
	if l := d.list("changes"); len(l) > ChangesCap {
		d["changes"] = l[len(l)-ChangesCap:]
	}
}

// toRecord converts a doc to the reader's Record type (for index entries).
func (d doc) toRecord() *Record {
	return &Record{Category: d.str("category"), Title: d.str("title"), Tags: d.strings("tags"),
		RecordStatus: d.str("record_status"), CreatedAt: d.str("created_at")}
}

func (d doc) bytes() ([]byte, error) { return marshal(map[string]any(d)) }

func sortedSet(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}
