package recall

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zylos/zylos-memory/tiers/records"
)

// Pre-actions and structural CUD verdicts of the claude-memory plugin.
const (
	ActionCreate         = "CREATE"
	ActionNoop           = "NOOP"
	ActionUpdate         = "UPDATE"
	ActionUpdateOrDelete = "UPDATE_OR_DELETE"
)

// LifecycleEvents are the events that suggest a memory should go away.
var LifecycleEvents = []string{"resolved", "removed", "reversed", "superseded", "deprecated"}

// deleteDisallowed are the categories whose records triage may never
// delete: history and stated preferences are updated, not dropped.
var deleteDisallowed = map[string]bool{"decision": true, "preference": true, "session_summary": true}

// CandidateOptions are the inputs of one candidate selection.
type CandidateOptions struct {
	Root           string
	Cwd            string // the caller's working directory, for relative paths
	Category       string // lower-case category name
	NewInfo        string
	LifecycleEvent string // "" when none
	Warn           io.Writer
}

// CandidateResult is the JSON answer of `records candidate`, field for
// field and in the order of memory_candidate.py.
type CandidateResult struct {
	Candidate      *Candidate `json:"candidate"`
	LifecycleEvent *string    `json:"lifecycle_event"`
	DeleteAllowed  bool       `json:"delete_allowed"`
	PreAction      *string    `json:"pre_action"`
	StructuralCUD  string     `json:"structural_cud"`
	Vetoes         []string   `json:"vetoes"`
	Hints          []string   `json:"hints"`
}

// Candidate is the existing record the new information most likely
// belongs to.
type Candidate struct {
	Path    string   `json:"path"`
	Title   string   `json:"title"`
	Tags    []string `json:"tags"`
	Excerpt *Excerpt `json:"excerpt"`
}

// ErrNoIndex means index.md is missing and could not be rebuilt.
var ErrNoIndex = errors.New("index.md not found")

// SelectCandidate finds the best existing record of the category for the
// new information and the CUD actions structurally open to it.
func SelectCandidate(opts CandidateOptions) (*CandidateResult, error) {
	es, err := readIndexRebuilding(opts.Root, warnFunc(opts.Warn), func(l records.IndexLine) bool {
		return l.Category == opts.Category
	})
	if err != nil {
		return nil, err
	}
	best, score := bestCandidate(Tokenize(opts.NewInfo), opts.Category, es)
	var cand *Candidate
	if best != nil {
		cand = verifiedCandidate(opts, *best)
	}
	return classify(opts.Category, opts.LifecycleEvent, cand, score), nil
}

// bestCandidate is the highest-scoring entry of the category, ties broken
// by path so the answer never depends on index order; nil below the
// threshold.
func bestCandidate(tokens map[string]struct{}, category string, es []records.Entry) (*records.Entry, int) {
	var best *records.Entry
	bestScore := 0
	for i := range es {
		e := &es[i]
		if e.Category != category {
			continue
		}
		s := Score(tokens, e.Title, e.Tags)
		if s > bestScore || s == bestScore && best != nil && e.Path < best.Path {
			best, bestScore = e, s
		}
	}
	if bestScore < candidateMin {
		return nil, 0
	}
	return best, bestScore
}

// verifiedCandidate checks that the candidate's path is a .json file under
// the root before reading it; a bad path is a warning and no candidate.
func verifiedCandidate(opts CandidateOptions, e records.Entry) *Candidate {
	if !strings.HasSuffix(e.Path, ".json") {
		warnf(opts.Warn, "WARNING: candidate path is not a .json file: %s", e.Path)
		return nil
	}
	file, err := records.Locate(opts.Root, opts.Cwd, e.Path)
	if err != nil {
		warnf(opts.Warn, "WARNING: candidate path rejected: %v", err)
		return nil
	}
	ex, err := buildExcerpt(file, opts.Category)
	if err != nil {
		warnf(opts.Warn, "WARNING: cannot read candidate %s: %v", e.Path, err)
	}
	tags := e.Tags
	if tags == nil {
		tags = []string{}
	}
	return &Candidate{Path: e.Path, Title: e.Title, Tags: tags, Excerpt: ex}
}

// classify applies the pre-classification, structural CUD, vetoes and
// hints tables of the claude-memory plugin.
func classify(category, event string, cand *Candidate, score int) *CandidateResult {
	res := &CandidateResult{
		Candidate:     cand,
		DeleteAllowed: !deleteDisallowed[category],
		Vetoes:        []string{},
		Hints:         []string{},
	}
	if event != "" {
		res.LifecycleEvent = &event
	}
	switch {
	case cand == nil && event == "":
		res.PreAction = ptr(ActionCreate)
	case cand == nil:
		res.PreAction = ptr(ActionNoop)
	}
	switch {
	case res.PreAction != nil:
		res.StructuralCUD = *res.PreAction
	case res.DeleteAllowed:
		res.StructuralCUD = ActionUpdateOrDelete
	default:
		res.StructuralCUD = ActionUpdate
	}
	if cand == nil && res.PreAction == nil {
		res.Vetoes = append(res.Vetoes, "Cannot UPDATE with 0 candidates", "Cannot DELETE with 0 candidates")
	}
	if cand != nil && !res.DeleteAllowed {
		res.Vetoes = append(res.Vetoes, fmt.Sprintf("Cannot DELETE %s (triage-initiated)", category))
	}
	if cand != nil {
		res.Hints = append(res.Hints, fmt.Sprintf("1 candidate found (score=%d)", score))
		if event != "" && res.DeleteAllowed {
			res.Hints = append(res.Hints, fmt.Sprintf("lifecycle_event=%s suggests DELETE if eligible", event))
		} else if event != "" {
			res.Hints = append(res.Hints, fmt.Sprintf("lifecycle_event=%s present but DELETE disallowed; consider UPDATE", event))
		}
	}
	if res.StructuralCUD == ActionNoop {
		res.Hints = append(res.Hints, fmt.Sprintf("lifecycle_event=%s with no matching candidate; NOOP", event))
	}
	return res
}

func ptr(s string) *string { return &s }

func warnFunc(w io.Writer) func(string) {
	return func(msg string) { warnf(w, "%s", msg) }
}

func warnf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}
