package records

import (
	"errors"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	valid := `{"schema_version":"1.0","category":"decision","id":"use-jwt","title":"Use JWT",
 "created_at":"2026-03-15T10:30:00Z","updated_at":"2026-03-15T10:30:00Z","tags":["auth"],
 "content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`
	tests := []struct {
		name, category, doc, field string
	}{
		{"valid", "decision", valid, ""},
		{"bad enum", "decision", `{"schema_version":"1.0","category":"decision","id":"a","title":"t","created_at":"x","updated_at":"x","tags":["a"],"content":{"status":"active","context":"c","decision":"d","rationale":["r"]}}`, "content.status"},
		{"missing", "decision", `{"schema_version":"1.0","category":"decision","id":"a","title":"t","created_at":"x","updated_at":"x","tags":["a"],"content":{"status":"accepted","context":"c","decision":"d"}}`, "content.rationale"},
		{"unknown top", "decision", `{"schema_version":"1.0","category":"decision","id":"a","title":"t","created_at":"x","updated_at":"x","tags":["a"],"bogus":1,"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`, "bogus"},
		{"wrong category", "runbook", valid, "category"},
		{"project ok", "project", `{"schema_version":"1.0","category":"project","id":"p","title":"P","created_at":"x","updated_at":"x","tags":["a"],"content":{"status":"planned","notes":"n"}}`, ""},
		{"not json", "decision", `{`, "(file)"},
		{"long title not unevaluated", "decision", strings.Replace(valid, `"Use JWT"`, `"`+strings.Repeat("x", 130)+`"`, 1), "title"},
		{"wrong type", "decision", strings.Replace(valid, `"tags":["auth"]`, `"tags":"auth"`, 1), "tags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.category, []byte(tt.doc))
			if tt.field == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != ErrValidation {
				t.Fatalf("want VALIDATION_ERROR, got %v", err)
			}
			if e.Fields[0][1] != tt.field {
				t.Fatalf("field = %q, want %q\n%s", e.Fields[0][1], tt.field, e.Block())
			}
		})
	}
}

func TestEverySchemaCompiles(t *testing.T) {
	for _, c := range Categories {
		if _, err := schemaFor(c); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
}
