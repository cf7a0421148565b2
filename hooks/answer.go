package hooks

// Answer is what an entry point tells Claude Code: JSON on stdout, a
// message on stderr, and the exit status (2 blocks, for Stop).
type Answer struct {
	Output  any
	Message string
	Code    int
	// Wrote are the memory files the hook itself wrote or removed for
	// the tool call, relative to memory/ (an ingest's records, a record
	// moved aside): the call's change in the journal takes exactly these
	// beside the tool's own file. Claude Code never sees them.
	Wrote []string
}

type contextOutput struct {
	HookSpecificOutput contextSpecific `json:"hookSpecificOutput"`
}

type contextSpecific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// ContextAnswer injects text as additionalContext for event. Empty text is
// no answer at all, which Claude Code reads as "nothing to add".
func ContextAnswer(event, text string) Answer {
	if text == "" {
		return Answer{}
	}
	return Answer{Output: contextOutput{contextSpecific{event, text}}}
}
