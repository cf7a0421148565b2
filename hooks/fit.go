package hooks

import (
	"fmt"
	"strings"

	"github.com/zylos/zylos-memory/internal/jsstring"
	"github.com/zylos/zylos-memory/internal/lazy"
	"github.com/zylos/zylos-memory/tiers"
)

// recordHeader starts one conversation record of the C4 session-init text:
// `[2026-03-15 10:30:00] IN (telegram:42):`.
var recordHeader = lazy.Regexp(`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] (IN|OUT) \(`)

const (
	recentHeading = "[Recent Conversations]"
	triggerPrefix = "[Action Required]"
	// The same parts in a v0.7 home's framing (zylos-core v0.7.1).
	v07RecentHeading  = "=== RECENT CONVERSATIONS ==="
	v07RecentEnd      = "=== END RECENT CONVERSATIONS ==="
	v07TriggerHeading = "=== ACTION REQUIRED ==="
)

// readC4Sentence says how to read the conversations a cut left out; cmd
// is how the agent runs this binary for this home (Env.invocation).
func readC4Sentence(cmd string) string {
	return "Read them with: " + cmd + " c4 unsummarized, then " + cmd + " c4 fetch --begin <id> --end <id>."
}

// fitSessionInit cuts the C4 session-init text to budget characters by
// dropping its oldest conversation records first, keeping the checkpoint
// summary and the sync trigger, and saying what was dropped. When even that
// does not fit, the sync trigger alone (what the agent must act on) is kept
// under a note, or, with no room at all, nothing. cmd spells the commands
// the markers give.
func fitSessionInit(text string, budget int, cmd string) string {
	if jsstring.Len(text) <= budget {
		return text
	}
	head, records, tail := splitSessionInit(text)
	for cut := 1; cut <= len(records); cut++ {
		marker := fmt.Sprintf("[... %d older of %d recent conversations not shown, to stay under %s. %s]\n\n",
			cut, len(records), tiers.LimitPhrase, readC4Sentence(cmd))
		out := head + marker + strings.Join(records[cut:], "") + tail
		if jsstring.Len(out) <= budget {
			return out
		}
	}
	for _, out := range []string{essentialC4(tail, cmd), c4CutNote(cmd)} {
		if jsstring.Len(out) <= budget {
			return out
		}
	}
	return ""
}

// c4CutNote stands in for C4 context that had no room at all.
func c4CutNote(cmd string) string {
	return "[C4 conversation context not shown, to stay under " + tiers.LimitPhrase + ". Read it with: " + cmd + " c4 session-init.]\n"
}

// essentialC4 is the least C4 context worth injecting: the cut note and
// the sync trigger, if there is one.
func essentialC4(tail, cmd string) string {
	if tail == "" {
		return c4CutNote(cmd)
	}
	return c4CutNote(cmd) + "\n" + tail
}

// splitSessionInit splits the text into what precedes the first record,
// the records (each with its trailing empty line), and the trigger line
// with what follows it.
func splitSessionInit(text string) (head string, records []string, tail string) {
	lines := strings.SplitAfter(text, "\n")
	i := 0
	var b strings.Builder
	for ; i < len(lines); i++ {
		b.WriteString(lines[i])
		if h := strings.TrimRight(lines[i], "\n"); h == recentHeading || h == v07RecentHeading {
			i++
			break
		}
	}
	head = b.String()
	if i >= len(lines) {
		return text, nil, ""
	}
	var cur strings.Builder
	for ; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, triggerPrefix) || strings.HasPrefix(line, v07RecentEnd) {
			break
		}
		if recordHeader().MatchString(line) && cur.Len() > 0 {
			records = append(records, cur.String())
			cur.Reset()
		}
		cur.WriteString(line)
	}
	if cur.Len() > 0 {
		records = append(records, cur.String())
	}
	return head, records, strings.Join(lines[i:], "")
}
