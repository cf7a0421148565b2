package records

import (
	"encoding/json"
	"strings"
)

// Answer is a success reply: ordered keys, printed as one JSON line in
// Python's json.dumps style ({"status": "created", "target": ...}) so
// scripts written against the plugin read it unchanged.
type Answer []Field

// Field is one key of an Answer.
type Field struct {
	Key   string
	Value any
}

func (a Answer) String() string {
	parts := make([]string, len(a))
	for i, f := range a {
		parts[i] = jsonText(f.Key) + ": " + jsonText(f.Value)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Get returns the value of key, or nil.
func (a Answer) Get(key string) any {
	for _, f := range a {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

func jsonText(v any) string {
	if list, ok := v.([]string); ok { // Python's list separator is ", "
		parts := make([]string, len(list))
		for i, s := range list {
			parts[i] = jsonText(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return strings.TrimSuffix(b.String(), "\n")
}
