package records

import (
	"encoding/json"
	"fmt"
	"strings"
)

// FieldText renders a content value as one line: lists joined with "; ",
// numbers and booleans as written, objects as compact JSON, null as "".
func FieldText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case []any:
		parts := make([]string, 0, len(v))
		for _, x := range v {
			parts = append(parts, FieldText(x))
		}
		return strings.Join(parts, "; ")
	case float64, bool:
		return fmt.Sprint(v)
	}
	data, _ := json.Marshal(v)
	return string(data)
}
