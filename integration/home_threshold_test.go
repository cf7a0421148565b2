package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestSyncThresholdAgreed: the prompt hook, the doctor and memory_status
// read C4_SYNC_THRESHOLD the same way, so that none warns of a backlog
// another keeps quiet about: 3 conversations are over a threshold of 2 for
// all three and under the layout's own 30 for all three.
func TestSyncThresholdAgreed(t *testing.T) {
	zylos := mcpHome(t)
	c4fixture.Create(t, filepath.Join(zylos, "comm-bridge", "c4.db"), 3, 0)
	for _, tt := range []struct {
		env  []string
		over bool
	}{
		{[]string{"C4_SYNC_THRESHOLD=2"}, true},
		{nil, false},
		{[]string{"C4_SYNC_THRESHOLD=many"}, false}, // not a count: the layout's own, everywhere
	} {
		run := testutil.Run{ZylosDir: zylos, Env: tt.env, Stdin: `{"prompt":"hello","session_id":"s-t"}`}
		hook := run.Exec(t, "hook", "user-prompt-submit")
		if got := strings.Contains(hook.Stdout, "[Action Required] There are 3 unsummarized"); got != tt.over {
			t.Errorf("%v: hook asks for a sync = %v, want %v: %+v", tt.env, got, tt.over, hook)
		}
		doctor := testutil.Run{ZylosDir: zylos, Env: tt.env}.Exec(t, "doctor")
		ignored := strings.Contains(doctor.Stdout, `C4_SYNC_THRESHOLD="many" is not a plain count, so the layout's 30 is used`)
		if got := strings.Contains(doctor.Stdout, "warn  c4 db:") && !ignored; got != tt.over {
			t.Errorf("%v: doctor warns of the backlog = %v, want %v:\n%s", tt.env, got, tt.over, doctor.Stdout)
		}
		if want := len(tt.env) > 0 && tt.env[0] == "C4_SYNC_THRESHOLD=many"; ignored != want {
			t.Errorf("%v: doctor says the value is ignored = %v, want %v:\n%s", tt.env, ignored, want, doctor.Stdout)
		}
		s, _ := mcpSession(t, zylos, tt.env...)
		status := mustCall(t, s, "memory_status", map[string]any{})
		if got := strings.Contains(status, "over the sync threshold"); got != tt.over {
			t.Errorf("%v: memory_status says over the threshold = %v, want %v:\n%s", tt.env, got, tt.over, status)
		}
	}
}
