package integration

import (
	"path/filepath"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestZylosCoreV07SessionStart runs zylos-core v0.7.1's own
// session-start-inject.js and c4-session-init.js, installed in the home's
// .claude/skills as zylos installs them, beside the binary on generated
// v0.7 trees: the outputs must be the same bytes.
func TestZylosCoreV07SessionStart(t *testing.T) {
	trees := []struct {
		name                        string
		identity, state, references string
		convs                       int
		summary                     string
	}{
		{"all files, few conversations", sampleIdentity, sampleState, sampleReferences, 3, "Decisions: ship it."},
		{"missing references, over threshold", sampleIdentity, sampleState, "", 16, "initial"},
		{"empty state, no summary", sampleIdentity, "\n\n", sampleReferences, 15, ""},
		{"no conversations", "\ufeff# Identity  \r\n\r\nCRLF and a BOM\r\n", sampleState, sampleReferences, 0, "initial"},
	}
	for _, tt := range trees {
		t.Run(tt.name, func(t *testing.T) {
			dir := v07Tree(t, tt.identity, tt.state, tt.references)
			node := newNodeSkills(t, coreV071, filepath.Join(dir, ".claude", "skills"))
			r := testutil.Run{ZylosDir: dir}
			r.Exec(t, "c4", "init")
			db := rawDB(t, filepath.Join(dir, "comm-bridge", "c4.db"))
			var s any = tt.summary
			if tt.summary == "" {
				s = nil
			}
			mustExec(t, db, `UPDATE checkpoints SET summary = ?, timestamp = '2026-03-01 00:00:00'`, s)
			insertConvs(t, db, numbered(tt.convs))
			db.Close()
			for _, c := range []struct {
				script string
				cmd    []string
			}{
				{"zylos-memory/session-start-inject.js", args("inject")},
				{"c4-session-init.js", args("c4 session-init")},
			} {
				nodeOut, nodeErr, nodeCode := node.run(t, dir, c.script)
				res := r.Exec(t, c.cmd...)
				if nodeOut != res.Stdout || nodeCode != res.Code {
					t.Errorf("%v differs from %s (node stderr %q):\n%s", c.cmd, c.script, nodeErr, testutil.Diff(nodeOut, res.Stdout))
				}
			}
		})
	}
}
