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

// TestValidationText pins the expected/got/fix wording of each keyword:
// it is read by the agent that wrote the record, so it must stay the
// same whichever validator library produces the failure.
func TestValidationText(t *testing.T) {
	valid := `{"schema_version":"1.0","category":"decision","id":"use-jwt","title":"Use JWT",
 "created_at":"2026-03-15T10:30:00Z","updated_at":"2026-03-15T10:30:00Z","tags":["auth"],
 "content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`
	tests := []struct{ name, old, new, want string }{
		{"const", `"schema_version":"1.0"`, `"schema_version":"2.0"`,
			`VALIDATION_ERROR; field: schema_version; expected: "1.0"; got: "2.0"; fix: Correct schema_version to match the schema`},
		{"type", `"context":"c"`, `"context":5`,
			`VALIDATION_ERROR; field: content.context; expected: type string; got: 5; fix: Correct content.context to match the schema`},
		{"minItems through $ref", `"rationale":["r"]`, `"rationale":[]`,
			`VALIDATION_ERROR; field: content.rationale; expected: at least 1 item(s); got: []; fix: Correct content.rationale to match the schema`},
		{"maxLength", `"Use JWT"`, `"` + strings.Repeat("x", 121) + `"`,
			`VALIDATION_ERROR; field: title; expected: at most 120 characters; got: "` + strings.Repeat("x", 119) + `; fix: Correct title to match the schema`},
		{"pattern", `"use-jwt"`, `"Use JWT"`,
			`VALIDATION_ERROR; field: id; expected: a string matching ^[a-z0-9]([a-z0-9-]{0,78}[a-z0-9])?$; got: "Use JWT"; fix: Correct id to match the schema`},
		{"maximum", `"tags":["auth"]`, `"tags":["auth"],"confidence":1.5`,
			`VALIDATION_ERROR; field: confidence; expected: a number <= 1.00; got: 1.5; fix: Correct confidence to match the schema`},
		{"nested additionalProperties", `"tags":["auth"]`, `"tags":["auth"],"changes":[{"date":"d","summary":"s","who":"me"}]`,
			`VALIDATION_ERROR; field: changes.0.who; expected: no such field; got: unknown field; fix: Remove changes.0.who`},
		{"content additionalProperties", `"context":"c"`, `"context":"c","owner":"me"`,
			`VALIDATION_ERROR; field: content.owner; expected: no such field; got: unknown field; fix: Remove content.owner`},
		{"required before the spurious null", `"status":"accepted",`, ``,
			`VALIDATION_ERROR; field: content.status; expected: a value (required field); got: missing; fix: Add content.status`},
		{"outermost first", `"tags":["auth"]`, `"tags":[""],"bogus":1`,
			`VALIDATION_ERROR; field: tags.0; expected: at least 1 character(s); got: ""; fix: Correct tags.0 to match the schema`},
		{"not an object", valid, `[1]`,
			`VALIDATION_ERROR; field: (record); expected: type object; got: [1]; fix: Correct (record) to match the schema`},
		{"trailing data", valid, valid + ` {}`,
			`VALIDATION_ERROR; field: (file); expected: valid JSON; got: invalid character after top-level value; fix: Write well-formed JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := strings.Replace(valid, tt.old, tt.new, 1)
			if doc == valid {
				t.Fatalf("replacement %q not applied", tt.old)
			}
			err := Validate("decision", []byte(doc))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestValidateUnknownCategory(t *testing.T) {
	err := Validate("diary", []byte(`{}`))
	var e *Error
	if !errors.As(err, &e) || e.Fields[0][1] != "category" {
		t.Fatalf("want a category VALIDATION_ERROR, got %v", err)
	}
}

// FuzzValidate: any input gives nil or a VALIDATION_ERROR, never a panic
// or another error.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{"schema_version":"1.0","category":"decision","id":"a","title":"t","created_at":"x","updated_at":"x","tags":["a"],"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`))
	f.Add([]byte(`{"confidence":1e400,"times_updated":-0.5,"changes":[{"date":1}],"content":[]}`))
	f.Add([]byte(`[[[[{}]]]]`))
	f.Add([]byte(`{"a/b":{"~0":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Validate("decision", data)
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Kind != ErrValidation) {
			t.Fatalf("not a VALIDATION_ERROR: %v", err)
		}
	})
}
