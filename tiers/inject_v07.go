package tiers

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"
)

// ContextPart is one block of session-start context and the file a reader
// opens for what a cut left out.
type ContextPart struct {
	Text string
	File string
}

// v07Parts are the files a v0.7 home injects, in order, under v0.7.1's labels.
var v07Parts = []struct{ label, file string }{
	{"BOT IDENTITY", "identity.md"},
	{"ACTIVE STATE", "state.md"},
	{"REFERENCES", "references.md"},
}

// FormatSection frames a block as zylos-core v0.7.1 does (session-format.js):
// `=== LABEL ===`, the content trimmed (or `(empty)`), `=== END LABEL ===`.
func FormatSection(label, content string) string {
	body := strings.TrimFunc(content, isJSSpace)
	if body == "" {
		body = "(empty)"
	}
	return "=== " + label + " ===\n" + body + "\n=== END " + label + " ==="
}

// isJSSpace is what String.prototype.trim removes: Unicode white space,
// line terminators and the byte order mark.
func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// MemoryParts are the memory blocks injected at session start: core.md's
// context in a v2 home, identity.md, state.md and references.md as framed
// sections in a v0.7 home (a missing file says `(missing)`, an unreadable
// one `(read error: ...)`, as session-start-inject.js of v0.7.1).
func MemoryParts(l Layout) ([]ContextPart, error) {
	if l.Kind() != KindV07 {
		text, err := CoreContext(l)
		if err != nil {
			return nil, err
		}
		return []ContextPart{{Text: text, File: l.CoreFile()}}, nil
	}
	parts := make([]ContextPart, 0, len(v07Parts))
	for _, p := range v07Parts {
		file := l.MemoryDir() + string(os.PathSeparator) + p.file
		data, err := os.ReadFile(file)
		content := nodeString(data)
		switch {
		case isMissing(err):
			content = "(missing)"
		case err != nil:
			content = fmt.Sprintf("(read error: %v)", err)
		}
		parts = append(parts, ContextPart{Text: FormatSection(p.label, content), File: file})
	}
	return parts, nil
}

// MemoryContext is the memory context as the layout's Node script builds
// it: core.md's context (v2), or the v0.7 sections joined by an empty line.
func MemoryContext(l Layout) (string, error) {
	parts, err := MemoryParts(l)
	if err != nil {
		return "", err
	}
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Text
	}
	return strings.Join(texts, "\n\n"), nil
}

// FitParts joins parts with an empty line in at most limit characters
// (UTF-16 code units). Each part keeps what it needs when it fits in an
// equal share; the room small parts leave goes to the larger ones, and
// each part over its share is cut on a line boundary with a marker naming
// its file.
func FitParts(parts []ContextPart, limit int) string {
	if len(parts) == 0 {
		return ""
	}
	room := limit - len("\n\n")*(len(parts)-1)
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return jsLength(parts[a].Text) - jsLength(parts[b].Text) })
	out := make([]string, len(parts))
	for n, i := range order {
		share := max(room/(len(parts)-n), 0)
		out[i] = CapContextFor(parts[i].Text, share, "Read the rest with the Read tool: "+parts[i].File+".")
		room -= jsLength(out[i])
	}
	return strings.Join(out, "\n\n")
}
