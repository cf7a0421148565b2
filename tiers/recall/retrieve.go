package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zylos/zylos-memory/internal/jsstring"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/fulltext"
	"github.com/zylos/zylos-memory/tiers/records"
)

// minPromptLen: shorter prompts ("yes", "go on") carry no topic.
const minPromptLen = 10

// RetrieveOptions are the inputs of one retrieval.
type RetrieveOptions struct {
	Prompt string
	// Root is the records root; Layout locates the markdown reference tier
	// and is the base its entries are cited from.
	Root   string
	Layout tiers.Layout
	// Conversations opens the home's conversation log for the index's
	// update (see fulltext.Scope); nil leaves it out.
	Conversations fulltext.OpenConversations
	Now           time.Time
	// Warn receives the few warnings the hook may print (a bad max_inject).
	Warn io.Writer
	// Reindex, when set, starts a build of the home's search index in a
	// process of its own; retrieval calls it when it cannot build a
	// missing index within its deadline.
	Reindex func() error
	// Answers renders the memories with their words (see answer.go), all
	// within the excerpt budget, as the zylos prompt hook injects them;
	// without it, records and entries are the plugin's index lines.
	Answers bool
	// Room is what the answers may take of the prompt's context, in
	// UTF-16 code units, once the rest of it is set aside (0: Claude
	// Code's cap): the block is fitted to it once, and never cut again.
	Room int
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
// retrieval disabled, max_inject 0, no match...): up to max_inject records
// and reference entries in the plugin's line format, then the best
// session, archive and C4 excerpts within the excerpt budget. Only a
// cancelled context is an error: every other problem (an index locked or
// damaged beyond the deadline) degrades to fewer memories, because a hook
// must never stand between the user and the agent; an index that cannot
// be opened or searched says why on Warn.
func Retrieve(ctx context.Context, opts RetrieveOptions) (string, error) {
	if utf8.RuneCountInString(strings.TrimSpace(opts.Prompt)) < minPromptLen {
		return "", nil
	}
	set := records.DefaultConfig()
	limit, budget, attrs := set.MaxInject, DefaultExcerptBudget, ""
	if isDir(opts.Root) {
		s := retrievalSettings(opts.Root)
		if s.warning != "" && opts.Warn != nil {
			fmt.Fprintln(opts.Warn, s.warning)
		}
		if !s.enabled || s.maxInject == 0 {
			return "", nil
		}
		limit, budget, attrs = s.maxInject, s.excerptBudget, s.descriptions
	}
	terms, err := fulltext.Terms(opts.Prompt)
	if err != nil {
		return "", nil
	}
	h := fulltext.ScopeOf(opts.Layout, opts.Root, opts.Conversations)
	ixOpts := fulltext.Options{BusyTimeout: busyTimeout(ctx), NoWaitUpdate: true, BuildWithin: buildWithin(ctx)}
	if !h.Standalone {
		ixOpts.Background = opts.Reindex
	}
	ix, _, err := fulltext.OpenFresh(ctx, h, ixOpts)
	if err != nil {
		return "", indexFailed(ctx, opts.Warn, err)
	}
	defer ix.Close()
	hits, err := ix.Search(ctx, fulltext.Query{Text: opts.Prompt, Limit: limit + excerptCandidates, Now: opts.Now})
	if err != nil {
		return "", indexFailed(ctx, opts.Warn, fmt.Errorf("search index: %w", err))
	}
	var memories, excerpts, ranked []fulltext.Hit
	for _, hit := range hits {
		switch {
		case hit.Tier == fulltext.TierRecords || hit.Tier == fulltext.TierReference:
			if len(memories) < limit {
				memories = append(memories, hit)
				ranked = append(ranked, hit)
			}
		case len(excerpts) < maxExcerpts:
			excerpts = append(excerpts, hit)
			ranked = append(ranked, hit)
		}
	}
	if opts.Answers {
		room := tiers.ContextLimit
		if opts.Room > 0 {
			room = min(opts.Room, room)
		}
		return formatAnswers(opts.Root, attrs, ranked, terms, min(budget, room)), nil
	}
	if len(memories) == 0 && len(excerpts) == 0 || budget == 0 && len(memories) == 0 {
		return "", nil
	}
	return formatContext(opts.Root, attrs, memories, excerpts, budget), nil
}

// indexFailed is Retrieve's error once the index failed it: a cancelled
// context, or nil with a warning. An index busy with another writer or
// being built in the background is only late, and says nothing.
func indexFailed(ctx context.Context, warn io.Writer, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if warn != nil && !errors.Is(err, fulltext.ErrLocked) && !errors.Is(err, fulltext.ErrBuilding) {
		fmt.Fprintln(warn, err)
	}
	return nil
}

// DefaultExcerptBudget is how many characters of session, archive and C4
// excerpts one prompt may receive, unless retrieval.excerpt_chars says
// otherwise.
const DefaultExcerptBudget = 1500

// excerptCandidates is how many hits beyond max_inject are ranked so that
// excerpts compete with records; maxExcerpts bounds the excerpts shown.
const (
	excerptCandidates = 8
	maxExcerpts       = 5
)

// buildWithin is how long a retrieval may spend building a missing index
// before it hands the build to RetrieveOptions.Reindex: half of what is
// left before the deadline.
func buildWithin(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return max(time.Until(dl)/2, time.Millisecond)
	}
	return 0
}

// busyTimeout is the longest a retrieval waits for another process's
// lock on the index: a fifth of what is left before the deadline.
func busyTimeout(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return max(time.Until(dl)/5, time.Millisecond)
	}
	return time.Second
}

// formatContext renders the block the hook prints. Titles, tags, excerpts
// and paths are sanitized: any file of memory may have been written by
// hand. Lines that would take the block past Claude Code's cap
// (tiers.ContextLimit, in UTF-16 code units) are left out;
// excerpts stop at the budget. attrs are further attributes of the opening
// tag (the category descriptions).
func formatContext(root, attrs string, memories, excerpts []fulltext.Hit, budget int) string {
	const closing = "</memory-context>\n"
	var b strings.Builder
	fmt.Fprintf(&b, "<memory-context source=\"%s/\"%s>\n", injectSafePath(citePath(records.Base(root), root)), attrs)
	size := jsstring.Len(b.String())
	add := func(line string) {
		if n := jsstring.Len(line); size+n+len(closing) <= tiers.ContextLimit {
			b.WriteString(line)
			size += n
		}
	}
	for _, h := range memories {
		add(memoryLine(h))
	}
	used := 0
	for _, h := range excerpts {
		line := excerptLine(h)
		if used+len(line) > budget {
			continue
		}
		used += len(line)
		add(line)
	}
	b.WriteString(closing)
	return b.String()
}

// memoryLine is a record or reference entry in the plugin's format.
func memoryLine(h fulltext.Hit) string {
	path := h.Path
	if h.Tier != fulltext.TierRecords {
		path = fmt.Sprintf("%s#L%d", h.Path, h.Line)
	}
	line := fmt.Sprintf("- [%s] %s -> %s", h.Category, injectSafe(h.Title), injectSafePath(path))
	if h.Origin != "" {
		line = fmt.Sprintf("- [%s] %s (from %s) -> %s", h.Category, injectSafe(h.Title), injectSafe(h.Origin), injectSafePath(path))
	}
	if tags := safeTags(h.Tags); len(tags) > 0 {
		line += " #tags:" + strings.Join(tags, ",")
	}
	return line + "\n"
}

// excerptLine is a session, archive or C4 excerpt: where and when, what.
func excerptLine(h fulltext.Hit) string {
	label := strings.ToUpper(h.Tier)
	if h.Date != "" {
		label += " " + h.Date
	}
	return fmt.Sprintf("- [%s] %s -> %s\n", label, injectSafe(oneLine(h.Excerpt)), injectSafePath(h.Cite))
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
