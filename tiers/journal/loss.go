package journal

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zylos/zylos-memory/tiers"
)

// Loss is the lines a change removed from a file the agent relies on:
// core.md (v0.7: identity.md, state.md, references.md) or a reference
// file. Only a change that leaves the file shorter counts, and only lines
// that did not come back elsewhere in it, so that an edit in place is not
// told as a loss.
type Loss struct {
	Path  string   // relative to memory/
	Lines []string // the removed lines, in order
}

// watched reports whether path is a file whose lost lines are told.
func watched(path string) bool {
	if slices.Contains(tiers.AllInjected(), path) {
		return true
	}
	return strings.HasPrefix(path, "reference/") && strings.HasSuffix(path, ".md") && !strings.Contains(path[len("reference/"):], "/")
}

// parseLosses reads a -U0 diff into the losses of the files keep accepts.
func parseLosses(diff string, keep func(path string) bool) []Loss {
	var out []Loss
	var path string
	var removed, added []string
	flush := func() {
		if path == "" || !keep(path) || len(removed) <= len(added) {
			return
		}
		if lost := without(removed, added); len(lost) > 0 {
			out = append(out, Loss{Path: path, Lines: lost})
		}
	}
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			path, removed, added = "", nil, nil
		case strings.HasPrefix(line, "--- "):
			if p, ok := strings.CutPrefix(line, "--- a/"); ok {
				path = p
			} else if p, ok := strings.CutPrefix(line, `--- "a/`); ok {
				path = strings.TrimSuffix(p, `"`)
			}
		case strings.HasPrefix(line, "+++ "):
		case strings.HasPrefix(line, "-"):
			removed = append(removed, line[1:])
		case strings.HasPrefix(line, "+"):
			added = append(added, line[1:])
		}
	}
	flush()
	return out
}

// without is the lines of from not in take, each line of take taking
// one of from at most, in from's order: the lines a change lost, when
// from were removed and take added (a moved line is not lost).
func without(from, take []string) []string {
	back := map[string]int{}
	for _, a := range take {
		back[a]++
	}
	var out []string
	for _, r := range from {
		if back[r] > 0 {
			back[r]--
			continue
		}
		out = append(out, r)
	}
	return out
}

// Advice is the one short paragraph that tells the agent what a change
// lost and how to get it back; restore is the command that restores a
// path (the binary and --zylos-dir), rev the commit before the change.
func Advice(losses []Loss, rev, restore string) string {
	var parts []string
	for _, l := range losses {
		var quoted []string
		shown := 0
		for _, s := range l.Lines {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			if len(quoted) == 3 {
				break
			}
			quoted = append(quoted, fmt.Sprintf("%q", truncate(s, 80)))
			shown++
		}
		more := ""
		if nonBlank(l.Lines) > shown {
			more = ", …"
		}
		parts = append(parts, fmt.Sprintf("%d %s left memory/%s (%s%s); if that was not meant, restore it with: %s restore memory/%s --at %s",
			len(l.Lines), plural(len(l.Lines), "line", "lines"), l.Path, strings.Join(quoted, ", "), more, restore, l.Path, short(rev)))
	}
	return "This change removed memory: " + strings.Join(parts, ". ") + "."
}

func nonBlank(lines []string) int {
	n := 0
	for _, s := range lines {
		if strings.TrimSpace(s) != "" {
			n++
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func short(rev string) string {
	if len(rev) > shortLen {
		return rev[:shortLen]
	}
	return rev
}
