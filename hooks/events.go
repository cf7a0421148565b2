package hooks

// Event is one hook entry point: the Claude Code event it answers, the
// `zylos-memory hook` subcommand that implements it, and how it is
// registered in settings.local.json.
type Event struct {
	Name    string // Claude Code event name, e.g. "SessionStart"
	Command string // subcommand of `zylos-memory hook`
	Matcher string // tool-name pattern; empty for events without tools
	Timeout int    // seconds Claude Code waits before cancelling the hook
}

// The timeouts are Claude Code's, in seconds, and generous: the entry
// points stop themselves at their own deadline (DefaultDeadline) long
// before, so the agent is never held up by them.
var (
	SessionStart     = Event{Name: "SessionStart", Command: "session-start", Timeout: 10}
	UserPromptSubmit = Event{Name: "UserPromptSubmit", Command: "user-prompt-submit", Timeout: 10}
	Stop             = Event{Name: "Stop", Command: "stop", Timeout: 30}
	PreToolUse       = Event{Name: "PreToolUse", Command: "pre-tool-use", Matcher: writeTools, Timeout: 5}
	PostToolUse      = Event{Name: "PostToolUse", Command: "post-tool-use", Matcher: writeTools, Timeout: 10}
	// PostToolUseFailure: a failed tool call (a shell command that exited
	// non-zero) may still have changed files; its window is closed too.
	PostToolUseFailure = Event{Name: "PostToolUseFailure", Command: "post-tool-use-failure", Matcher: writeTools, Timeout: 10}
)

// writeTools are the tools that can write a memory file: the file tools
// and the shell.
const writeTools = "Write|Edit|MultiEdit|NotebookEdit|Bash"

var allEvents = []Event{SessionStart, UserPromptSubmit, Stop, PreToolUse, PostToolUse, PostToolUseFailure}

// AllEvents are the events zylos-memory answers in any build, in
// registration order: a settings file may name one this build lacks.
func AllEvents() []Event { return append([]Event(nil), allEvents...) }

// Events returns the events that have an entry point in this build, in
// registration order. init registers exactly these.
func Events() []Event {
	var out []Event
	for _, ev := range allEvents {
		if handlers[ev.Command] != nil {
			out = append(out, ev)
		}
	}
	return out
}

// EventByCommand finds an event by its subcommand name.
func EventByCommand(command string) (Event, bool) {
	for _, ev := range allEvents {
		if ev.Command == command {
			return ev, true
		}
	}
	return Event{}, false
}
