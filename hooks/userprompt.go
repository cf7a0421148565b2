package hooks

import (
	"context"
	"fmt"
)

// userPromptSubmit adds the C4 sync trigger when conversations have piled
// up past the threshold, and nothing otherwise.
func userPromptSubmit(ctx context.Context, env Env, _ Input) (Answer, error) {
	trigger, err := c4Trigger(ctx, env.Layout)
	if err != nil {
		return Answer{}, fmt.Errorf("c4 threshold check: %w", err)
	}
	return ContextAnswer(UserPromptSubmit.Name, fitSessionInit(trigger, contextBudget)), nil
}
