package records

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed schemas/*.json
var schemaFS embed.FS

// SchemaFile is the embedded schema file name of category c.
func SchemaFile(c string) string {
	return strings.ReplaceAll(c, "_", "-") + ".schema.json"
}

// SchemaJSON returns the embedded schema text of category c (or "base").
func SchemaJSON(c string) ([]byte, error) {
	return schemaFS.ReadFile("schemas/" + SchemaFile(c))
}

var (
	schemasOnce sync.Once
	compiler    *jsonschema.Compiler
	compiled    sync.Map // category -> *jsonschema.Schema
	printer     = message.NewPrinter(language.English)
)

func schemaFor(c string) (*jsonschema.Schema, error) {
	if s, ok := compiled.Load(c); ok {
		return s.(*jsonschema.Schema), nil
	}
	if !ValidCategory(c) {
		return nil, fmt.Errorf("unknown category %q", c)
	}
	schemasOnce.Do(loadSchemas)
	s, err := compiler.Compile(SchemaFile(c))
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", c, err)
	}
	compiled.Store(c, s)
	return s, nil
}

// loadSchemas adds every embedded schema as a resource under its file
// name, so "$ref": "base.schema.json" resolves without touching disk.
func loadSchemas() {
	compiler = jsonschema.NewCompiler()
	entries, _ := schemaFS.ReadDir("schemas")
	for _, e := range entries {
		data, _ := schemaFS.ReadFile("schemas/" + e.Name())
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err == nil {
			err = compiler.AddResource(e.Name(), doc)
		}
		if err != nil {
			panic(fmt.Sprintf("embedded schema %s: %v", e.Name(), err)) // caught by tests
		}
	}
}

// Validate checks record JSON against category's schema. A failure is an
// *Error of kind VALIDATION_ERROR naming the first offending field.
func Validate(category string, data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return newError(ErrValidation, "field", "(file)", "expected", "valid JSON", "got", err.Error(),
			"fix", "Write well-formed JSON")
	}
	return validateValue(category, doc)
}

// validateValue checks an already decoded JSON value (from
// jsonschema.UnmarshalJSON or encoding/json with UseNumber or float64).
func validateValue(category string, doc any) error {
	s, err := schemaFor(category)
	if err != nil {
		return newError(ErrValidation, "field", "category", "expected", "one of "+strings.Join(Categories, ", "),
			"got", quote(category), "fix", "Use a known category")
	}
	err = s.Validate(doc)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return validationBlock(leaf(ve), doc)
}

// leaf picks one most specific failure: among all leaves, the one
// closest to the top of the record (then by name), so the answer is
// stable and names the outermost problem first.
func leaf(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return ve
	}
	var best *jsonschema.ValidationError
	for _, c := range ve.Causes {
		l := leaf(c)
		if best == nil || before(l, best) {
			best = l
		}
	}
	return best
}

// before ranks failures: real constraint failures before "unevaluated
// property" ones (when a $ref'd base part fails, every field it covered
// is also reported as unevaluated), then outermost, then by name.
func before(a, b *jsonschema.ValidationError) bool {
	_, aUneval := a.ErrorKind.(*kind.FalseSchema)
	_, bUneval := b.ErrorKind.(*kind.FalseSchema)
	if aUneval != bUneval {
		return bUneval
	}
	if len(a.InstanceLocation) != len(b.InstanceLocation) {
		return len(a.InstanceLocation) < len(b.InstanceLocation)
	}
	return strings.Join(a.InstanceLocation, ".") < strings.Join(b.InstanceLocation, ".")
}

func validationBlock(ve *jsonschema.ValidationError, doc any) *Error {
	field := strings.Join(ve.InstanceLocation, ".")
	expected := ve.ErrorKind.LocalizedString(printer)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		field = joinField(field, k.Missing[0])
		expected = "a value (required field)"
		return newError(ErrValidation, "field", field, "expected", expected, "got", "missing",
			"fix", "Add "+field)
	case *kind.AdditionalProperties:
		field = joinField(field, k.Properties[0])
		return newError(ErrValidation, "field", field, "expected", "no such field", "got", "unknown field",
			"fix", "Remove "+field)
	case *kind.FalseSchema: // unevaluatedProperties: a field no schema allows
		if field == "" {
			field = "(record)"
		}
		return newError(ErrValidation, "field", field, "expected", "no such field", "got", "unknown field",
			"fix", "Remove "+field)
	case *kind.Enum:
		return newError(ErrValidation, "field", field, "expected", "one of "+quote(k.Want), "got", quote(k.Got),
			"fix", "Change "+field+" to a valid enum value")
	}
	if field == "" {
		field = "(record)"
	}
	if want := expectation(ve.ErrorKind); want != "" {
		expected = want
	}
	return newError(ErrValidation, "field", field, "expected", expected, "got", Truncate(quote(valueAt(doc, ve.InstanceLocation)), 120),
		"fix", "Correct "+field+" to match the schema")
}

// expectation phrases the common constraint kinds for the agent.
func expectation(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return "type " + strings.Join(k.Want, " or ")
	case *kind.Const:
		return quote(k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("at least %d item(s)", k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("at most %d items", k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("at least %d character(s)", k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("at most %d characters", k.Want)
	case *kind.Pattern:
		return "a string matching " + k.Want
	case *kind.Minimum:
		return "a number >= " + k.Want.FloatString(2)
	case *kind.Maximum:
		return "a number <= " + k.Want.FloatString(2)
	}
	return ""
}

// valueAt follows a JSON pointer's tokens into a decoded document.
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

// marshal encodes a record map the way files are written: two-space
// indent, no HTML escaping, trailing newline.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
