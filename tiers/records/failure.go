package records

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kaptinlin/jsonschema"
)

// failure is one keyword that failed, where it failed, and the schema
// that holds the keyword (nil when it cannot be told).
type failure struct {
	loc      []string // instance location of the failing value
	err      *jsonschema.EvaluationError
	schema   *jsonschema.Schema
	name     string // the property named by required/additionalProperties
	uneval   bool   // a field only unevaluatedProperties rejects
	refDepth int    // how many $refs lead to the failing schema
}

// depth ranks failures by nesting. An additionalProperties failure
// belongs to the object holding the field, like a required one.
func (f failure) depth() int {
	if f.err.Keyword == "additionalProperties" {
		return len(f.loc) - 1
	}
	return len(f.loc)
}

// before ranks failures: real constraint failures before "unevaluated
// property" ones (when a $ref'd base part fails, every field it covered
// is also reported as unevaluated), then outermost, then by name, then
// the one reached through more $refs (the shared base part first), then
// by keyword, so the answer does not depend on evaluation order.
func (f failure) before(g failure) bool {
	if f.uneval != g.uneval {
		return g.uneval
	}
	if f.depth() != g.depth() {
		return f.depth() < g.depth()
	}
	if a, b := strings.Join(f.loc, "."), strings.Join(g.loc, "."); a != b {
		return a < b
	}
	if f.refDepth != g.refDepth {
		return f.refDepth > g.refDepth
	}
	return f.err.Keyword < g.err.Keyword
}

// applicator tells keywords that fail because a subschema failed; the
// subschema's own result holds the real failure.
func applicator(keyword string) bool {
	switch keyword {
	case "properties", "patternProperties", "additionalProperties", "unevaluatedProperties",
		"items", "prefixItems", "unevaluatedItems", "contains", "$ref", "$dynamicRef",
		"allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "propertyNames", "contentSchema":
		return true
	}
	return false
}

// pickFailure picks one most specific failure of an invalid result of
// schema s.
func pickFailure(res *jsonschema.EvaluationResult, s *jsonschema.Schema) failure {
	var best failure
	found := false
	walkFailures(res, s, nil, 0, func(f failure) {
		if !found || f.before(best) {
			best, found = f, true
		}
	})
	if !found { // unreachable for an invalid result; keep the block meaningful
		best = failure{err: jsonschema.NewEvaluationError("schema", "invalid", "a valid record")}
	}
	return best
}

// walkFailures calls fn for every failing keyword under res, which was
// evaluated against s at instance location loc through refs $refs.
// Child results carry their location and schema path relative to their
// parent; a $ref'd schema's result has an empty path.
func walkFailures(res *jsonschema.EvaluationResult, s *jsonschema.Schema, loc []string, refs int, fn func(failure)) {
	hasInvalid := false
	for _, d := range res.Details {
		if d.IsValid() {
			continue
		}
		hasInvalid = true
		childLoc := loc
		if tok, ok := strings.CutPrefix(d.InstanceLocation, "/"); ok {
			childLoc = append(loc[:len(loc):len(loc)], tok)
		}
		childRefs := refs
		if d.EvaluationPath == "" {
			childRefs++
		}
		walkFailures(d, subschema(s, d.EvaluationPath), childLoc, childRefs, fn)
	}
	for _, e := range res.Errors {
		if hasInvalid && applicator(e.Keyword) {
			continue
		}
		f := failure{loc: loc, err: e, schema: s, refDepth: refs}
		switch {
		case e.Keyword == "required":
			f.name = firstParam(e)
		case e.Code == "false_schema_mismatch":
			f = falseSchemaFailure(f, res.EvaluationPath)
		}
		fn(f)
	}
}

// falseSchemaFailure tells which false schema rejected a field: an
// additionalProperties one is reported like the old-style keyword on the
// object, an unevaluatedProperties one on the field itself.
func falseSchemaFailure(f failure, evalPath string) failure {
	if name, ok := strings.CutPrefix(evalPath, "/additionalProperties/"); ok {
		f.err = &jsonschema.EvaluationError{Keyword: "additionalProperties", Code: f.err.Code, Message: f.err.Message}
		f.name = name
		return f
	}
	f.uneval = true
	return f
}

// subschema follows one step of an evaluation path from s; nil when the
// step is one the blocks do not need.
func subschema(s *jsonschema.Schema, step string) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	switch {
	case step == "":
		return s.ResolvedRef
	case strings.HasPrefix(step, "/properties/"):
		if s.Properties == nil {
			return nil
		}
		return (*s.Properties)[strings.TrimPrefix(step, "/properties/")]
	case strings.HasPrefix(step, "/items/"):
		return s.Items
	case strings.HasPrefix(step, "/additionalProperties/"):
		return s.AdditionalProperties
	case step == "/unevaluatedProperties":
		return s.UnevaluatedProperties
	}
	return nil
}

// firstParam is the first name of a required error's quoted name list
// ("'a'" or "'a', 'b'").
func firstParam(e *jsonschema.EvaluationError) string {
	p, _ := e.Params["property"].(string)
	if p == "" {
		p, _ = e.Params["properties"].(string)
	}
	first, _, _ := strings.Cut(p, "', '")
	return strings.Trim(first, "'")
}

func validationBlock(f failure, doc any) *Error {
	field := strings.Join(f.loc, ".")
	switch {
	case f.err.Keyword == "required":
		field = joinField(field, f.name)
		return newError(ErrValidation, "field", field, "expected", "a value (required field)", "got", "missing",
			"fix", "Add "+field)
	case f.err.Keyword == "additionalProperties":
		field = joinField(strings.Join(f.loc[:len(f.loc)-1], "."), f.name)
		return newError(ErrValidation, "field", field, "expected", "no such field", "got", "unknown field",
			"fix", "Remove "+field)
	}
	if field == "" {
		field = "(record)"
	}
	if f.uneval { // unevaluatedProperties: a field no schema allows
		return newError(ErrValidation, "field", field, "expected", "no such field", "got", "unknown field",
			"fix", "Remove "+field)
	}
	got := quote(valueAt(doc, f.loc))
	if f.err.Keyword == "enum" && f.schema != nil {
		return newError(ErrValidation, "field", field, "expected", "one of "+quote(f.schema.Enum), "got", got,
			"fix", "Change "+field+" to a valid enum value")
	}
	expected := f.err.Error()
	if want := expectation(f.err.Keyword, f.schema); want != "" {
		expected = want
	}
	return newError(ErrValidation, "field", field, "expected", expected, "got", Truncate(got, 120),
		"fix", "Correct "+field+" to match the schema")
}

// expectation phrases the common constraint keywords for the agent from
// the schema that failed.
func expectation(keyword string, s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	switch {
	case keyword == "type" && len(s.Type) > 0:
		return "type " + strings.Join(s.Type, " or ")
	case keyword == "const" && s.Const != nil:
		return quote(s.Const.Value)
	case keyword == "minItems" && s.MinItems != nil:
		return fmt.Sprintf("at least %d item(s)", int(*s.MinItems))
	case keyword == "maxItems" && s.MaxItems != nil:
		return fmt.Sprintf("at most %d items", int(*s.MaxItems))
	case keyword == "minLength" && s.MinLength != nil:
		return fmt.Sprintf("at least %d character(s)", int(*s.MinLength))
	case keyword == "maxLength" && s.MaxLength != nil:
		return fmt.Sprintf("at most %d characters", int(*s.MaxLength))
	case keyword == "pattern" && s.Pattern != nil:
		return "a string matching " + *s.Pattern
	case keyword == "minimum" && s.Minimum != nil:
		return "a number >= " + s.Minimum.FloatString(2)
	case keyword == "maximum" && s.Maximum != nil:
		return "a number <= " + s.Maximum.FloatString(2)
	}
	return ""
}

// valueAt follows instance location tokens into a decoded document.
func valueAt(doc any, path []string) any {
	for _, tok := range path {
		switch v := doc.(type) {
		case map[string]any:
			doc = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	return doc
}

func joinField(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}
