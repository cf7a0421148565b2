package hooks

import (
	"context"
	"fmt"
	"math"
	"strings"

	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

// userPromptSubmit records the prompt in C4 when capture is on, and
// answers with one context: the C4 sync trigger when
// conversations have piled up past the threshold and the session has not
// been told yet (see promptTrigger), then the memories
// related to the prompt. Each part fails open on its own. The trigger
// and the memories are looked up side by side: they read different
// files, and the prompt waits for both.
func userPromptSubmit(ctx context.Context, env Env, in Input) (Answer, error) {
	var notes []string
	db, err := captureOpen(ctx, env, c4sync.DirectionIn, in.SessionID, in.Prompt)
	if err != nil {
		notes = append(notes, "capture prompt: "+err.Error())
	}
	if db != nil {
		defer db.Close()
	}
	checkTrigger := start(func() (string, error) { return promptTrigger(ctx, env, in.SessionID, db) })
	memories, warnings, err := retrieve(ctx, env, in)
	trigger, triggerErr := checkTrigger(ctx)
	if triggerErr != nil {
		notes = append(notes, "c4 threshold check: "+triggerErr.Error())
	}
	if err != nil {
		notes = append(notes, "retrieve: "+err.Error())
	}
	if warnings != "" {
		notes = append(notes, warnings)
	}
	ans := ContextAnswer(UserPromptSubmit.Name, joinContext(trigger, memories))
	if len(notes) > 0 {
		ans.Message = fmt.Sprintf("zylos-memory hook %s: %s", UserPromptSubmit.Command, strings.Join(notes, "; "))
	}
	return ans, nil
}

// longestTrigger is the longest sync trigger a prompt of a home of kind
// can carry: the memories are fitted, once, to what it leaves of the
// context, while the trigger is looked up beside them.
func longestTrigger(kind *tiers.Kind) string {
	most := int64(math.MaxInt64)
	return c4sync.TriggerLine(kind, c4sync.Range{Count: most, Begin: &most, End: &most})
}
