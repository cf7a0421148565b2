package hooks

import (
	"fmt"
	"strings"

	"github.com/zylos/zylos-memory/tiers/bridge"
	"github.com/zylos/zylos-memory/tiers/records/guard"
)

// ingestEdit takes a Write/Edit of a reference file into the records. A
// malformed entry of that file comes back as feedback (PostToolUse's
// {"decision":"block","reason":...}) so that the agent mends it at once;
// what changed is noted on stderr.
func ingestEdit(env Env, in Input) (*guard.PostToolUse, string, error) {
	h := bridge.Home{Layout: env.Layout, Now: env.Now(), MaxCreates: bridge.BoundedCreates}
	rel, ok := h.ReferenceFile(guard.FilePath(in.ToolInput), in.Cwd)
	if !ok {
		return nil, "", nil
	}
	var notes []string
	h.Warn = func(s string) { notes = append(notes, s) }
	rep, err := bridge.Ingest(h, false)
	if err != nil {
		return nil, "", fmt.Errorf("ingest %s: %w", rel, err)
	}
	for _, c := range rep.Changes {
		notes = append(notes, "[INGEST] "+c.String())
	}
	var problems []string
	for _, p := range rep.Problems {
		if p.File == "memory/"+rel {
			problems = append(problems, p.String())
		}
	}
	if len(problems) == 0 {
		return nil, strings.Join(notes, "\n"), nil
	}
	reason := "These entries of memory/" + rel + " are not saved as records until they are mended:\n- " +
		strings.Join(problems, "\n- ") + "\n" + entryFormats
	return &guard.PostToolUse{Decision: "block", Reason: reason}, strings.Join(notes, "\n"), nil
}

// entryFormats reminds the agent of the entry formats of the reference tier.
const entryFormats = "Formats: decision `### [YYYY-MM-DD] Title` with `- **Decision:**`, `- **Context:**`, " +
	"`- **Status:** active|superseded|archived`; project `### Name` with `- **Status:** active|completed|blocked|planned`, " +
	"`- **Updated:** YYYY-MM-DD`, `- **Notes:**`; preference `### Name` with `- **Value:**`, `- **Source:**`, `- **Added:** YYYY-MM-DD`. " +
	"Keep each entry's `<!-- id: ... -->` line."
