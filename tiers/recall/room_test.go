package recall

import (
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/jsstring"
)

// The answers are fitted once, to the room the caller leaves them: within
// it, and with as many memories as fit whole.
func TestAnswersFitTheRoomLeft(t *testing.T) {
	h := sampleHome(t)
	for _, room := range []int{0, 600, 300} {
		out, err := Retrieve(t.Context(), RetrieveOptions{Prompt: "how do we handle auth tokens and sessions?",
			Root: h.root, Layout: h.layout, Now: now, Answers: true, Room: room})
		if err != nil {
			t.Fatal(err)
		}
		if room > 0 && jsstring.Len(out) > room {
			t.Errorf("room %d: answers take %d:\n%s", room, jsstring.Len(out), out)
		}
		if room != 300 && !strings.Contains(out, "<memory-context") {
			t.Errorf("room %d: no answers:\n%s", room, out)
		}
	}
}
