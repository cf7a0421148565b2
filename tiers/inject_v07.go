package tiers

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/zylos/zylos-memory/internal/jsstring"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// ContextPart is one block of session-start context and the sentence that
// tells a reader where the rest is when a cut leaves some out.
type ContextPart struct {
	Text     string
	ReadMore string
}

// FormatSection frames a block as zylos-core v0.7.1 does (session-format.js):
// `=== LABEL ===`, the content trimmed (or `(empty)`), `=== END LABEL ===`.
func FormatSection(label, content string) string {
	open, closing := SectionFrame(label)
	return open + SectionBody(content) + closing
}

// SectionFrame is what FormatSection puts before and after a section's body.
func SectionFrame(label string) (open, closing string) {
	return "=== " + label + " ===\n", "\n=== END " + label + " ==="
}

// SectionBody is content as FormatSection frames it: trimmed as
// String.prototype.trim does, "(empty)" when nothing is left.
func SectionBody(content string) string {
	if body := strings.TrimFunc(content, isJSSpace); body != "" {
		return body
	}
	return "(empty)"
}

// isJSSpace is what String.prototype.trim removes: Unicode white space,
// line terminators and the byte order mark.
func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// MemoryParts are the memory blocks injected at session start: core.md's
// context in a v2 home, identity.md, state.md and references.md as framed
// sections in a v0.7 home (a missing file says `(missing)`, an unreadable
// one `(read error: ...)`, as session-start-inject.js of v0.7.1).
func MemoryParts(l Layout) ([]ContextPart, error) { return MemoryPartsHead(l, 0) }

// MemoryPartsHead is MemoryParts from at most limit bytes of each file (0:
// all of it), for a caller that caps the text anyway; a cut head ends on
// its last whole line and its ReadMore says so.
func MemoryPartsHead(l Layout, limit int64) ([]ContextPart, error) {
	k := l.Kind()
	return k.parts(k, l, limit)
}

// coreParts is core.md's context, the one part of a v2 home.
func coreParts(_ *Kind, l Layout, limit int64) ([]ContextPart, error) {
	if limit <= 0 {
		text, err := CoreContext(l)
		return []ContextPart{{Text: text, ReadMore: readMore(l.CoreFile(), 0, 0)}}, err
	}
	text, size, err := CoreContextHead(l, limit)
	if err != nil {
		return nil, err
	}
	return []ContextPart{{Text: text, ReadMore: readMore(l.CoreFile(), size, limit)}}, nil
}

// sectionParts are k's injected files, each framed in its section, a
// missing or unreadable file said so in its section.
func sectionParts(k *Kind, l Layout, limit int64) ([]ContextPart, error) {
	parts := make([]ContextPart, 0, len(k.Injected))
	for _, f := range k.Injected {
		file := filepath.Join(l.MemoryDir(), f.Name)
		data, size, err := readHead(file, limit)
		content := nodeString(data)
		switch {
		case isMissing(err):
			content = "(missing)"
		case err != nil:
			content = fmt.Sprintf("(read error: %v)", err)
		}
		parts = append(parts, ContextPart{Text: FormatSection(f.Label, content), ReadMore: readMore(file, size, limit)})
	}
	return parts, nil
}

// readHead reads the file whole (limit 0), or its first limit bytes up to
// the last whole line among them.
func readHead(file string, limit int64) (data []byte, size int64, err error) {
	if limit <= 0 {
		data, err = regfile.ReadFile(file)
		return data, int64(len(data)), err
	}
	head, size, err := regfile.ReadHead(file, limit)
	if err == nil && int64(len(head)) < size {
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i+1]
		}
	}
	return head, size, err
}

// readMore is the sentence a cut ends with: where the rest is, and how
// much of a file larger than limit was read.
func readMore(file string, size, limit int64) string {
	s := "Read the rest with the Read tool: " + file + "."
	if limit > 0 && size > limit {
		s = fmt.Sprintf("%s is %d bytes; only its first %d were read, and the counts are of those. %s", filepath.Base(file), size, limit, s)
	}
	return s
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
	slices.SortStableFunc(order, func(a, b int) int { return jsstring.Len(parts[a].Text) - jsstring.Len(parts[b].Text) })
	out := make([]string, len(parts))
	for n, i := range order {
		share := max(room/(len(parts)-n), 0)
		out[i] = CapContextFor(parts[i].Text, share, parts[i].ReadMore)
		room -= jsstring.Len(out[i])
	}
	return strings.Join(out, "\n\n")
}
