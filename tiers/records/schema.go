package records

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/kaptinlin/jsonschema"
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

// schemaBase is the base URI the embedded schemas are known under; their
// relative "$id" and "$ref" values ("base.schema.json") resolve against it.
// The host is reserved (.invalid) and no loader is registered: nothing is
// ever fetched.
const schemaBase = "https://zylos-memory.invalid/schemas/"

// compiler holds base.schema.json, which every category schema
// references. It is built on the first validation, never at start-up:
// most commands validate nothing.
var compiler = sync.OnceValues(func() (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler().SetDefaultBaseURI(schemaBase)
	for scheme := range c.Loaders {
		delete(c.Loaders, scheme)
	}
	if err := compileEmbedded(c, "base"); err != nil {
		return nil, err
	}
	return c, nil
})

var compiled sync.Map // category -> *jsonschema.Schema

func compileEmbedded(c *jsonschema.Compiler, name string) error {
	data, err := SchemaJSON(name)
	if err == nil {
		_, err = c.Compile(data)
	}
	if err != nil {
		return fmt.Errorf("compile schema %s: %w", name, err)
	}
	return nil
}

func schemaFor(c string) (*jsonschema.Schema, error) {
	if s, ok := compiled.Load(c); ok {
		return s.(*jsonschema.Schema), nil
	}
	if !ValidCategory(c) {
		return nil, fmt.Errorf("unknown category %q", c)
	}
	comp, err := compiler()
	if err != nil {
		return nil, err
	}
	// Compile returns the already compiled schema when two
	// validations race on the same category.
	if err := compileEmbedded(comp, c); err != nil {
		return nil, err
	}
	s, err := comp.Schema(schemaBase + SchemaFile(c))
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", c, err)
	}
	compiled.Store(c, s)
	return s, nil
}

// Validate checks record JSON against category's schema. A failure is an
// *Error of kind VALIDATION_ERROR naming the first offending field.
func Validate(category string, data []byte) error {
	doc, err := decodeJSON(data)
	if err != nil {
		return newError(ErrValidation, "field", "(file)", "expected", "valid JSON", "got", err.Error(),
			"fix", "Write well-formed JSON")
	}
	return validateValue(category, doc)
}

// decodeJSON decodes one JSON value keeping numbers exact (json.Number)
// and rejects anything after it.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid character after top-level value")
	}
	return doc, nil
}

// validateValue checks an already decoded JSON value (encoding/json
// with UseNumber or float64 numbers).
func validateValue(category string, doc any) error {
	if !ValidCategory(category) {
		return newError(ErrValidation, "field", "category", "expected", "one of "+strings.Join(Categories, ", "),
			"got", quote(category), "fix", "Use a known category")
	}
	s, err := schemaFor(category)
	if err != nil {
		return err
	}
	var res *jsonschema.EvaluationResult
	if m, ok := doc.(map[string]any); ok {
		res = s.ValidateMap(m)
	} else {
		res = s.ValidateStruct(doc)
	}
	if res.IsValid() {
		return nil
	}
	return validationBlock(pickFailure(res, s), doc)
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
