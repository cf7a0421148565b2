package hooks

import (
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
)

// With capture on, the prompt's sync trigger counts the prompt just
// captured: it reads the backlog on the connection the capture wrote on.
func TestCapturedPromptCountsInTheTrigger(t *testing.T) {
	t.Setenv(CaptureEnv, "1")
	t.Setenv(thresholdEnv, "2")
	l := c4fixture.Home{Convs: 2}.Build(t)
	text, stderr := answer(t, UserPromptSubmit, l, `{"prompt":"hello there","session_id":"s-cap"}`)
	if !strings.Contains(text, "There are 3 unsummarized conversations") || stderr != "" {
		t.Errorf("context %q stderr %q, want the trigger over 3 conversations", text, stderr)
	}
}
