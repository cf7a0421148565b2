package tiers

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/zylos/zylos-memory/internal/jsstring"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// ContextLimit is how many characters of a hook's additionalContext Claude
// Code keeps; CapContext cuts below it so nothing is dropped silently.
const ContextLimit = 10000

// LimitPhrase names the cap in cut markers. A marker names Claude Code's
// cap, not the smaller share of it one part of a context was given.
var LimitPhrase = fmt.Sprintf("Claude Code's %d,%03d-character context limit", ContextLimit/1000, ContextLimit%1000)

const (
	coreHeader = "=== CORE MEMORY (loaded at session start) ===\n\n"
	noCoreText = "=== CORE MEMORY ===\n\nNo core.md found at ~/zylos/memory/core.md. This may be a fresh install. Read memory files to initialize."
)

// Inject output formats.
const (
	FormatV2     = "v2"     // {"additionalContext":...}, as session-start-inject.js
	FormatClaude = "claude" // the current SessionStart hook answer, capped
	FormatText   = "text"   // the context as plain text
	FormatNode   = ""       // the layout's own script: v2 for v2 homes, text for v0.7
)

// CoreContext is the additionalContext text session-start-inject.js builds:
// core.md verbatim under a header, or the fresh-install notice when core.md
// is missing or empty. Invalid UTF-8 becomes U+FFFD as Node decodes it.
func CoreContext(l Layout) (string, error) {
	data, err := regfile.ReadFile(l.CoreFile())
	return coreText(data, err)
}

// CoreContextHead is CoreContext from at most limit bytes of core.md, for
// a caller that caps the text anyway: a runaway core.md (150 MB) then
// costs no more than its head. A cut head ends on its last whole line, and
// size is the size of the whole file.
func CoreContextHead(l Layout, limit int64) (text string, size int64, err error) {
	head, size, err := readHead(l.CoreFile(), limit)
	text, err = coreText(head, err)
	return text, size, err
}

func coreText(data []byte, err error) (string, error) {
	if isMissing(err) {
		return noCoreText, nil
	}
	if err != nil {
		return "", fmt.Errorf("read core memory: %w", err)
	}
	if len(data) == 0 {
		return noCoreText, nil
	}
	return coreHeader + nodeString(data), nil
}

// WriteInject prints the memory context in format (FormatNode, FormatV2,
// FormatClaude or FormatText), one line of JSON for the JSON formats.
// FormatNode is what the layout's session-start-inject.js prints: the v2
// JSON line, or the v0.7 sections as text.
func WriteInject(w io.Writer, l Layout, format string) error {
	parts, err := MemoryParts(l)
	if err != nil {
		return err
	}
	if format == FormatNode {
		format = l.Kind().nodeFormat
	}
	text := FitParts(parts, math.MaxInt)
	var out []byte
	switch format {
	case FormatV2:
		out = jsonLine(`{"additionalContext":`, text, "}")
	case FormatClaude:
		text = FitParts(parts, ContextLimit)
		out = jsonLine(`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":`, text, "}}")
	case FormatText:
		out = []byte(text)
		if !strings.HasSuffix(text, "\n") {
			out = append(out, '\n')
		}
	default:
		return fmt.Errorf("unknown format %q (want %s, %s or %s)", format, FormatV2, FormatClaude, FormatText)
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("write context: %w", err)
	}
	return nil
}

// jsonLine is console.log(JSON.stringify(obj)) for an object whose only
// string value is text, between the JSON before and after it.
func jsonLine(before, text, after string) []byte {
	out := make([]byte, 0, len(before)+len(text)+len(text)/16+len(after)+4)
	out = append(out, before...)
	out = appendJSONString(out, text)
	out = append(out, after...)
	return append(out, '\n')
}

// CapContext cuts text to at most limit characters (UTF-16 code units, as
// Claude Code counts them) on a line boundary and ends it with a marker that
// says how much was cut. Text within the limit is returned unchanged.
func CapContext(text string, limit int) string {
	return CapContextFor(text, limit, "Read the source file for the full text.")
}

// CapContextFor is CapContext with readMore, a sentence telling the reader
// where the rest is, appended to the marker.
func CapContextFor(text string, limit int, readMore string) string {
	total := jsstring.Len(text)
	if total <= limit {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	// The marker's numbers only shrink as more is kept, so its length with
	// the largest numbers bounds every marker we may print.
	budget := limit - jsstring.Len(capMarker(len(lines), len(lines), total, readMore))
	var kept strings.Builder
	used, keptLines := 0, 0
	for _, line := range lines {
		n := jsstring.Len(line)
		if used+n > budget {
			break
		}
		kept.WriteString(line)
		used += n
		keptLines++
	}
	if keptLines == 0 && budget > 1 {
		// One line longer than the cap: cut it on a rune boundary instead.
		kept.WriteString(jsstring.Cut(lines[0], budget-1))
		kept.WriteByte('\n')
	}
	if s := kept.String(); s != "" && !strings.HasSuffix(s, "\n") {
		kept.WriteByte('\n')
	}
	shown := kept.String()
	marker := capMarker(len(lines)-keptLines, len(lines), total-jsstring.Len(shown), readMore)
	if budget < 1 {
		return jsstring.Cut(marker, limit)
	}
	return shown + marker
}

func capMarker(cutLines, lines, cutChars int, readMore string) string {
	return fmt.Sprintf("[... truncated: the last %d of %d lines (%d characters) were cut to stay under %s. %s]",
		cutLines, lines, cutChars, LimitPhrase, readMore)
}
