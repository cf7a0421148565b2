package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/records"
)

// MaxContextBytes caps the text one prompt may inject (Claude Code's hook
// output limit is 10,000 characters).
const MaxContextBytes = 10000

// minPromptLen: shorter prompts ("yes", "go on") carry no topic.
const minPromptLen = 10

// RetrieveOptions are the inputs of one retrieval.
type RetrieveOptions struct {
	Prompt string
	// Root is the records root; Layout locates the markdown reference tier
	// and is the base its entries are cited from.
	Root   string
	Layout tiers.Layout
	Now    time.Time
	// Warn receives the few warnings the hook may print (a bad max_inject).
	Warn io.Writer
}

// HookInput is the part of the UserPromptSubmit hook JSON retrieval reads.
type HookInput struct {
	Prompt string `json:"prompt"`
	CWD    string `json:"cwd"`
}

// ParseHookInput reads the hook's stdin JSON. Current Claude Code sends
// "prompt", older versions (and the plugin's tests) "user_prompt". ok is
// false for empty or invalid input, which the hook skips silently.
func ParseHookInput(data []byte) (in HookInput, ok bool) {
	var raw struct {
		Prompt     *string `json:"prompt"`
		UserPrompt *string `json:"user_prompt"`
		CWD        *string `json:"cwd"`
	}
	if len(strings.TrimSpace(string(data))) == 0 || json.Unmarshal(data, &raw) != nil {
		return HookInput{}, false
	}
	switch {
	case raw.Prompt != nil && *raw.Prompt != "":
		in.Prompt = *raw.Prompt
	case raw.UserPrompt != nil:
		in.Prompt = *raw.UserPrompt
	}
	if raw.CWD != nil {
		in.CWD = *raw.CWD
	}
	return in, true
}

// Retrieve returns the <memory-context> block of the memories most related
// to the prompt, or "" when there is nothing to inject (a short prompt,
// retrieval disabled, max_inject 0, no match...). Only a cancelled context
// is an error: every other problem degrades to fewer memories, because a
// hook must never stand between the user and the agent.
func Retrieve(ctx context.Context, opts RetrieveOptions) (string, error) {
	if utf8.RuneCountInString(strings.TrimSpace(opts.Prompt)) < minPromptLen {
		return "", nil
	}
	limit := maxInjectCap
	if isDir(opts.Root) {
		enabled, n, warning := retrievalSettings(opts.Root)
		if warning != "" && opts.Warn != nil {
			fmt.Fprintln(opts.Warn, warning)
		}
		if !enabled || n == 0 {
			return "", nil
		}
		limit = n
	} else {
		limit = records.DefaultConfig().MaxInject
	}
	tokens := Tokenize(opts.Prompt)
	if len(tokens) == 0 {
		return "", nil
	}
	q := newQuery(tokens)
	// Hits below the best deepCheckTop+limit of their source can never
	// be shown: at most deepCheckTop of those above them are dropped.
	best := deepCheckTop + limit
	hits := recordHits(opts.Root, q, nil, best)
	if err := ctx.Err(); err != nil {
		return "", err
	}
	hits = append(hits, referenceHits(opts.Layout, false, q, best)...)
	if err := ctx.Err(); err != nil {
		return "", err
	}
	ranked := rank(hits, opts.Now, limit)
	if len(ranked) == 0 {
		return "", nil
	}
	attrs := ""
	if isDir(opts.Root) {
		attrs = descriptionsAttr(opts.Root)
	}
	return formatContext(opts.Root, attrs, ranked), nil
}

// recordHits are the index entries that match the query, scored, in
// index order. No root or no index means no records. With best > 0 only
// the best that many are returned: a hit below them can never be shown
// (see rank), and building ten thousand hits for a hook process that shows
// twenty cost more than the scoring. So a line is only scored on the first
// pass, its tags parsed into a buffer on the stack.
func recordHits(root string, q query, warn func(string), best int) []Hit {
	if hits, ok := mappedRecordHits(root, q, best); ok {
		return hits
	}
	text, err := readIndexText(root, warn)
	if err != nil {
		return nil
	}
	return indexHits(root, text, q, best)
}

// indexHits are recordHits of an index text; their strings point into it.
func indexHits(root, text string, q query, best int) []Hit {
	matches := q.bestLines(text, best, func(line string) (points, prio int) {
		l, ok := records.SplitIndexLine(line)
		if !ok {
			return 0, 0
		}
		var buf [8]string
		return q.score(l.Title, l.AppendTags(buf[:0])), priority(l.Display)
	})
	hits := make([]Hit, len(matches))
	for n, m := range matches {
		l := indexLineAt(text, int(m.i))
		hits[n] = Hit{Category: l.Display, Title: l.Title, Path: l.Path,
			Tags: l.AppendTags(nil), Score: int(m.score), root: root}
	}
	return hits
}

// formatContext renders the block the hook prints. Titles, tags and paths
// are sanitized again here: the index is a file anyone can edit. Lines
// that would take the block past MaxContextBytes are left out. attrs are
// further attributes of the opening tag (the category descriptions).
func formatContext(root, attrs string, hits []Hit) string {
	const closing = "</memory-context>\n"
	var b strings.Builder
	fmt.Fprintf(&b, "<memory-context source=\"%s/\"%s>\n", injectSafePath(citePath(records.Base(root), root)), attrs)
	for _, h := range hits {
		line := contextLine(h)
		if b.Len()+len(line)+len(closing) > MaxContextBytes {
			continue
		}
		b.WriteString(line)
	}
	b.WriteString(closing)
	return b.String()
}

func contextLine(h Hit) string {
	line := fmt.Sprintf("- [%s] %s -> %s", h.Category, injectSafe(h.Title), injectSafePath(h.Path))
	if tags := safeTags(h.Tags); len(tags) > 0 {
		line += " #tags:" + strings.Join(tags, ",")
	}
	return line + "\n"
}

func safeTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		if t = injectSafeTag(t); t != "" {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}
