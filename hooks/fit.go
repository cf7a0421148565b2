package hooks

import (
	"fmt"
	"strings"

	"github.com/zylos/zylos-memory/internal/jsstring"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
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
func fitSessionInit(s c4sync.SessionInit, budget int, cmd string) string {
	if text := s.String(); jsstring.Len(text) <= budget {
		return text
	}
	head, records, tail := s.Head, s.Records, s.Tail
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
