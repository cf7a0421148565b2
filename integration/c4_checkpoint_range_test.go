package integration

import (
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// Checkpoint ids stay inside SQLite's int64 range: an end past it is
// refused, and after a checkpoint ending at the largest id no start
// exists, so the next checkpoint is refused instead of starting at a
// negative id.
func TestC4CheckpointIDOverflow(t *testing.T) {
	dir, _ := c4Home(t, nil, "")
	r := testutil.Run{ZylosDir: dir}
	steps := []struct {
		args   string
		code   int
		stdout string // a substring of stdout
		stderr string // a substring of stderr
	}{
		{"c4 checkpoint 9223372036854775808", 1, "", `end id "9223372036854775808" is past the largest id SQLite can store (9223372036854775807)`},
		{"c4 checkpoint 9223372036854775807", 0, `"end_conversation_id":9223372036854775807`, ""},
		{"c4 checkpoint 5", 1, "", "the previous checkpoint ends at 9223372036854775807, the largest id SQLite can store; no conversation can follow it"},
		{"c4 checkpoint 9223372036854775807", 1, "", "no conversation can follow it"},
	}
	for _, s := range steps {
		res := r.Exec(t, args(s.args)...)
		if res.Code != s.code || !strings.Contains(res.Stdout, s.stdout) || !strings.Contains(res.Stderr, s.stderr) {
			t.Fatalf("%s: exit %d, want %d\nstdout: %s\nstderr: %s\nwant stdout with %q, stderr with %q",
				s.args, res.Code, s.code, res.Stdout, res.Stderr, s.stdout, s.stderr)
		}
	}
	list := r.Exec(t, "c4", "checkpoint", "list")
	if strings.Contains(list.Stdout, `"start_conversation_id": -`) {
		t.Fatalf("a checkpoint with a negative start was stored:\n%s", list.Stdout)
	}
}
