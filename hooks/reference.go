package hooks

import (
	"fmt"
	"strings"

	"github.com/zylos/zylos-memory/hooks/guard"
	"github.com/zylos/zylos-memory/tiers/bridge"
)

// ingestEdit takes a Write/Edit of a reference file into the records. A
// malformed entry of that file, and an entry that named an id another
// entry holds (and was given its own), come back as feedback
// (PostToolUse's {"decision":"block","reason":...}) so that the agent
// mends it, or knows the file changed, at once; what changed is noted on
// stderr. written are the memory files the ingest wrote (see
// bridge.Report.Written).
func ingestEdit(env Env, in Input) (feedback *guard.PostToolUse, notes string, written []string, err error) {
	h := env.home()
	t, err := h.Resolve(guard.FilePath(in.ToolInput), in.Cwd)
	if err != nil || !t.Reference {
		return nil, "", nil, nil
	}
	rel := t.Rel
	var said []string
	warn := h.Warn
	h.Warn = func(s string) { said = append(said, s) }
	rep, err := h.Ingest(false, bridge.BoundedCreates)
	h.Warn = warn
	if err != nil {
		return nil, "", rep.Written, fmt.Errorf("ingest %s: %w", rel, err)
	}
	var renamed []string
	for _, c := range rep.Changes {
		said = append(said, "[INGEST] "+c.String())
		if c.IDWas != "" && c.File == "memory/"+rel {
			renamed = append(renamed, c.String())
		}
	}
	var problems []string
	for _, p := range rep.Problems {
		if p.File == "memory/"+rel {
			problems = append(problems, p.String())
		}
	}
	var reason []string
	if len(renamed) > 0 {
		reason = append(reason, "These entries of memory/"+rel+" named an id that another entry holds, so each was given an id of "+
			"its own (its id comment in the file now says so; read the file again before editing it):\n- "+strings.Join(renamed, "\n- "))
	}
	if len(problems) > 0 {
		reason = append(reason, "These entries of memory/"+rel+" are not saved as records until they are mended:\n- "+
			strings.Join(problems, "\n- ")+"\n"+entryFormats)
	}
	if len(reason) == 0 {
		return nil, strings.Join(said, "\n"), rep.Written, nil
	}
	return &guard.PostToolUse{Decision: "block", Reason: strings.Join(reason, "\n")}, strings.Join(said, "\n"), rep.Written, nil
}

// entryFormats reminds the agent of the entry formats of the reference tier.
const entryFormats = "Formats: decision `### [YYYY-MM-DD] Title` with `- **Decision:**`, `- **Context:**`, " +
	"`- **Status:** active|superseded|archived`; project `### Name` with `- **Status:** active|completed|blocked|planned`, " +
	"`- **Updated:** YYYY-MM-DD`, `- **Notes:**`; preference `### Name` with `- **Value:**`, `- **Source:**`, `- **Added:** YYYY-MM-DD`. " +
	"The `<!-- id: ... -->` lines are written for you: a new entry needs none (never copy one from another entry), " +
	"and an entry whose id line is wrong is mended by deleting that line."
