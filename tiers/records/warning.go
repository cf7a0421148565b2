package records

// WarningKind tells what a Warning is about.
type WarningKind int

const (
	// Note is a line for the caller's stderr, said as it is printed.
	Note WarningKind = iota
	// AutoFix is a mistake of the input corrected rather than refused.
	AutoFix
)

// A Warning is something a write tells its caller without failing.
type Warning struct {
	Kind WarningKind
	// Field is the field an AutoFix corrected.
	Field string
	// Text is a Note's line, or what an AutoFix did.
	Text string
}

// String is the warning as printed: an AutoFix as the claude-memory
// plugin prints it, "[AUTO-FIX] field: what".
func (w Warning) String() string {
	if w.Kind == AutoFix {
		return "[AUTO-FIX] " + w.Field + ": " + w.Text
	}
	return w.Text
}

// WarnLines is warn told each Warning as its printed line; nil drops
// them.
func WarnLines(warn func(string)) func(Warning) {
	if warn == nil {
		return nil
	}
	return func(w Warning) { warn(w.String()) }
}

// noteTo is warn taking Notes as lines (nil drops them).
func noteTo(warn func(Warning)) func(string) {
	return func(s string) {
		if warn != nil {
			warn(Warning{Kind: Note, Text: s})
		}
	}
}

// fixTo is warn taking the AutoFix of field (nil drops them).
func fixTo(warn func(Warning)) func(field, what string) {
	return func(field, what string) {
		if warn != nil {
			warn(Warning{Kind: AutoFix, Field: field, Text: what})
		}
	}
}
