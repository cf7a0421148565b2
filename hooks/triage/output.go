package triage

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/zylos/zylos-memory/tiers/records"
)

// maxSnippetsPerCategory keeps the answer short whatever the transcript.
const maxSnippetsPerCategory = 3

// MaxMessage is the longest block message, in bytes, kept under Claude
// Code's 10,000-character cap on text handed back to the agent.
const MaxMessage = 9000

// dataEntry is one category of the <triage_data> JSON the memory skill parses.
type dataEntry struct {
	Category    string  `json:"category"`
	Score       float64 `json:"score"`
	ContextFile string  `json:"context_file,omitempty"`
}

// Parallel is passed through to the agent: which model drafts each category.
type Parallel struct {
	Enabled           bool              `json:"enabled"`
	CategoryModels    map[string]string `json:"category_models"`
	VerificationModel string            `json:"verification_model"`
	DefaultModel      string            `json:"default_model"`
}

func parallelOf(c records.TriageConfig) Parallel {
	return Parallel{c.ParallelEnabled, c.CategoryModels, c.VerificationModel, c.DefaultModel}
}

type triageData struct {
	Categories     []dataEntry `json:"categories"`
	ParallelConfig Parallel    `json:"parallel_config"`
}

// blockMessage is the stderr text that blocks the stop: what to save, how, and
// the machine-readable <triage_data> block. contextFiles maps a category to
// its context file; a category whose file could not be written has none.
// Escaping can grow a snippet fivefold ("&" -> "&amp;"), so a message over
// MaxMessage is rebuilt with one snippet per category, which always fits.
// command is how the agent runs this binary for the home that triaged, so
// the advice works verbatim from the agent's working directory.
func blockMessage(hits []result, act activity, contextFiles map[string]string, p Parallel, command string) string {
	msg := composeMessage(hits, act, contextFiles, p, command, maxSnippetsPerCategory)
	if len(msg) > MaxMessage {
		msg = composeMessage(hits, act, contextFiles, p, command, 1)
	}
	return msg
}

func composeMessage(hits []result, act activity, contextFiles map[string]string, p Parallel, command string, snippets int) string {
	var b strings.Builder
	b.WriteString("The following items should be saved as memories before stopping:\n\n")
	data := triageData{ParallelConfig: p, Categories: []dataEntry{}}
	for _, h := range hits {
		fmt.Fprintf(&b, "- [%s] %s (score: %.2f)\n", h.Category, summary(h, act, snippets), h.Score)
		data.Categories = append(data.Categories, dataEntry{
			Category:    strings.ToLower(h.Category),
			Score:       math.Round(h.Score*100) / 100,
			ContextFile: contextFiles[h.Category],
		})
	}
	fmt.Fprintf(&b, "\nUse the memory skill to save each item: read its context file, check for an existing record "+
		"with `%[1]s records candidate`, then create or update it with `%[1]s records write`.\n\n", command)
	js, _ := json.Marshal(data) // plain strings, numbers and maps: cannot fail
	fmt.Fprintf(&b, "<triage_data>\n%s\n</triage_data>\n", js)
	return b.String()
}

func summary(h result, act activity, snippets int) string {
	if h.Category == SessionSummary {
		return fmt.Sprintf("Session activity: %d tool uses, %d distinct tools, %d exchanges",
			act.ToolUses, act.DistinctTools, act.Exchanges)
	}
	var parts []string
	for _, s := range h.Snippets[:min(len(h.Snippets), snippets)] {
		if s = sanitizeSnippet(s); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "Matched keywords in the conversation"
	}
	return strings.Join(parts, "; ")
}
