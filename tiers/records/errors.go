package records

import (
	"encoding/json"
	"strings"
)

// Error kinds printed as the first line of an error block.
const (
	ErrValidation   = "VALIDATION_ERROR"
	ErrMerge        = "MERGE_ERROR"
	ErrOCC          = "OCC_CONFLICT"
	ErrPath         = "PATH_ERROR"
	ErrResurrection = "ANTI_RESURRECTION_ERROR"
	ErrCreate       = "CREATE_ERROR"
	ErrUpdate       = "UPDATE_ERROR"
	ErrDelete       = "DELETE_ERROR" // --action delete
	ErrRetire       = "RETIRE_ERROR" // --action retire
	ErrArchive      = "ARCHIVE_ERROR"
	ErrUnarchive    = "UNARCHIVE_ERROR"
	ErrRestore      = "RESTORE_ERROR"
	ErrRead         = "READ_ERROR"
	ErrInput        = "INPUT_ERROR"
	ErrSecurity     = "SECURITY_ERROR"
	ErrLock         = "LOCK_ERROR"
	ErrWrite        = "WRITE_ERROR"
)

// Error is a user-facing failure of a records operation: a kind and
// ordered "key: value" lines, printed as a block on stdout so the agent
// can read what to fix.
type Error struct {
	Kind   string
	Fields [][2]string
}

func newError(kind string, kv ...string) *Error {
	e := &Error{Kind: kind}
	for i := 0; i+1 < len(kv); i += 2 {
		e.Fields = append(e.Fields, [2]string{kv[i], kv[i+1]})
	}
	return e
}

// Block is the multi-line form: the kind, then one "key: value" a line.
func (e *Error) Block() string {
	var b strings.Builder
	b.WriteString(e.Kind + "\n")
	for _, f := range e.Fields {
		b.WriteString(f[0] + ": " + oneLine(f[1]) + "\n")
	}
	return b.String()
}

// Error is the one-line form.
func (e *Error) Error() string {
	parts := []string{e.Kind}
	for _, f := range e.Fields {
		parts = append(parts, f[0]+": "+oneLine(f[1]))
	}
	return strings.Join(parts, "; ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// quote renders a value as JSON for "got:"/"old:" lines.
func quote(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}
