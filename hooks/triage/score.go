package triage

import (
	"regexp"
	"strings"
	"sync"
)

// Category names as the triage answer spells them (upper case; the
// <triage_data> JSON uses lower case).
const (
	Decision       = "DECISION"
	Runbook        = "RUNBOOK"
	Constraint     = "CONSTRAINT"
	TechDebt       = "TECH_DEBT"
	Preference     = "PREFERENCE"
	SessionSummary = "SESSION_SUMMARY"
)

// Categories lists every category in the order the answer reports them.
var Categories = []string{SessionSummary, Decision, Runbook, Constraint, TechDebt, Preference}

// coOccurrenceWindow is how many lines before and after a primary match a
// booster may sit to count the match as boosted.
const coOccurrenceWindow = 4

// rule scores one text category. A line counts at most once (its first
// primary match); a match is boosted when a booster occurs in the window
// around it. Counts are capped, so a long session cannot outscore a short
// one by repetition alone, and denominator = the capped maximum, so the
// score reaches exactly 1.0 at the caps.
type rule struct {
	primary, booster           *regexp.Regexp
	primaryWeight, boostWeight float64
	maxPrimary, maxBoosted     int
}

func words(alternatives ...string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:` + strings.Join(alternatives, "|") + `)\b`)
}

// rules is built on first use: compiling its regexps costs ~580
// allocations, which commands that never triage should not pay at start-up.
var rules = sync.OnceValue(func() map[string]rule {
	return map[string]rule{
		Decision: {
			primary:       words("decided", "chose", "selected", "went with", "picked"),
			booster:       words("because", "due to", "reason", "rationale", "over", "instead of", "rather than"),
			primaryWeight: 0.3, boostWeight: 0.5, maxPrimary: 3, maxBoosted: 2,
		},
		Runbook: {
			primary:       words("error", "exception", "traceback", "stack trace", "failed", "failure", "crash"),
			booster:       words("fixed by", "resolved", "root cause", "solution", "workaround", "the fix"),
			primaryWeight: 0.2, boostWeight: 0.6, maxPrimary: 3, maxBoosted: 2,
		},
		Constraint: {
			primary:       words("limitation", "api limit", "cannot", "restricted", "not supported", "quota", "rate limit"),
			booster:       words("discovered", "found that", "turns out", "permanently", "enduring", "platform"),
			primaryWeight: 0.3, boostWeight: 0.5, maxPrimary: 3, maxBoosted: 2,
		},
		TechDebt: {
			primary:       words("TODO", "deferred", "tech debt", "workaround", "hack", "will address later", "technical debt"),
			booster:       words("because", "for now", "temporary", "acknowledged", "deferring", "cost", "risk"),
			primaryWeight: 0.3, boostWeight: 0.5, maxPrimary: 3, maxBoosted: 2,
		},
		Preference: {
			primary:       words("always use", "prefer", "convention", "from now on", "standard", "never use", "established"),
			booster:       words("agreed", "going forward", "consistently", "rule", "practice", "workflow"),
			primaryWeight: 0.35, boostWeight: 0.5, maxPrimary: 3, maxBoosted: 2,
		},
	}
})

func (r rule) denominator() float64 {
	return float64(r.maxPrimary)*r.primaryWeight + float64(r.maxBoosted)*r.boostWeight
}

// result is one category's score and the evidence behind it.
type result struct {
	Category string
	Score    float64
	Snippets []string // matched lines, in transcript order
	Lines    []int    // indexes of every primary match, for context files
}

// scoreText scores lines against r.
func (r rule) scoreText(category string, lines []string) result {
	res := result{Category: category}
	primary, boosted := 0, 0
	for i, line := range lines {
		if !r.primary.MatchString(line) {
			continue
		}
		res.Lines = append(res.Lines, i)
		lo, hi := max(0, i-coOccurrenceWindow), min(len(lines), i+coOccurrenceWindow+1)
		counted := false
		if r.booster.MatchString(strings.Join(lines[lo:hi], "\n")) {
			if boosted < r.maxBoosted {
				boosted++
				counted = true
			}
		} else if primary < r.maxPrimary {
			primary++
			counted = true
		}
		if counted {
			res.Snippets = append(res.Snippets, strings.TrimSpace(line))
		}
	}
	raw := float64(primary)*r.primaryWeight + float64(boosted)*r.boostWeight
	res.Score = min(1.0, raw/r.denominator())
	return res
}

// scoreActivity is the SESSION_SUMMARY score: a busy session is worth a
// summary whatever words it used.
func scoreActivity(a activity) result {
	raw := float64(a.ToolUses)*0.05 + float64(a.DistinctTools)*0.1 + float64(a.Exchanges)*0.02
	return result{Category: SessionSummary, Score: min(1.0, raw)}
}

// scoreAll scores every category and returns those at or above their
// threshold, in Categories order.
func scoreAll(lines []string, act activity, thresholds map[string]float64) []result {
	var hits []result
	for _, cat := range Categories {
		var res result
		if cat == SessionSummary {
			res = scoreActivity(act)
		} else {
			res = rules()[cat].scoreText(cat, lines)
		}
		if res.Score > 0 && res.Score >= thresholds[cat] {
			hits = append(hits, res)
		}
	}
	return hits
}
