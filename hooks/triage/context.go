package triage

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/atomicfile"
)

const (
	// contextWindow is how many lines around each match a context file keeps.
	contextWindow = 10
	// maxContextBytes caps one context file.
	maxContextBytes = 50_000
	truncatedMarker = "\n[Truncated: context exceeded 50KB]\n"
)

// The context file name of the claude-memory plugin (.memory-triage-context-<category>.txt).
const (
	contextPrefix = ".memory-triage-context-"
	contextSuffix = ".txt"
)

// ContextFile is where the context of category is written in dir.
func ContextFile(dir, category string) string {
	return filepath.Join(dir, contextPrefix+strings.ToLower(category)+contextSuffix)
}

// writeContext writes the context file of res and returns its path. The
// file is replaced by rename, mode 0600: a symlink planted at the path is
// replaced, never written through, and a reader never sees half a file.
func writeContext(dir string, res result, lines []string, act activity) (string, error) {
	path := ContextFile(dir, res.Category)
	if err := atomicfile.WriteFile(path, []byte(contextText(res, lines, act)), 0o600); err != nil {
		return "", fmt.Errorf("write context file: %w", err)
	}
	return path, nil
}

func contextText(res result, lines []string, act activity) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Category: %s\nScore: %.2f\n\n<transcript_data>\n", strings.ToLower(res.Category), res.Score)
	if res.Category == SessionSummary {
		fmt.Fprintf(&b, "Tool uses: %d\nDistinct tools: %d\nExchanges: %d\n", act.ToolUses, act.DistinctTools, act.Exchanges)
	} else {
		b.WriteString(excerpt(lines, res.Lines))
	}
	b.WriteString("</transcript_data>\n\nKey snippets:\n")
	for _, s := range res.Snippets {
		fmt.Fprintf(&b, "- %s\n", sanitizeSnippet(s))
	}
	return capBytes(b.String(), maxContextBytes)
}

// excerpt merges the windows of contextWindow lines around each match
// into runs, separated by "---". Lines are escaped so the transcript
// cannot close the block it is quoted in or hide text.
func excerpt(lines []string, matches []int) string {
	var b strings.Builder
	end := -1 // last line already written
	for _, m := range matches {
		lo, hi := max(0, m-contextWindow), min(len(lines)-1, m+contextWindow)
		if lo > end+1 && end >= 0 {
			b.WriteString("---\n")
		}
		for i := max(lo, end+1); i <= hi; i++ {
			b.WriteString(escapeLine(lines[i]))
			b.WriteByte('\n')
		}
		end = max(end, hi)
	}
	return b.String()
}

// capBytes cuts s to at most limit bytes on a line boundary (and a valid
// UTF-8 boundary), ending with the truncation marker.
func capBytes(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := s[:limit-len(truncatedMarker)]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	return strings.ToValidUTF8(cut, "") + truncatedMarker
}
