package main

import (
	"strings"
	"testing"
)

// Flags after a journal command's arguments are read, as the hooks'
// advice writes them; other commands' arguments are left as they are.
func TestJournalArgs(t *testing.T) {
	cases := map[string]string{
		"zylos-memory --zylos-dir /z restore memory/core.md --at abc": "zylos-memory --zylos-dir /z restore --at abc memory/core.md",
		"zylos-memory history core.md --json --limit 2":               "zylos-memory history --json --limit 2 core.md",
		"zylos-memory history --session s core.md":                    "zylos-memory history --session s core.md",
		"zylos-memory show abc core.md --diff":                        "zylos-memory show --diff abc core.md",
		"zylos-memory search core.md --json":                          "zylos-memory search core.md --json",
		"zylos-memory --zylos-dir=/z undo x --session=s":              "zylos-memory --zylos-dir=/z undo --session=s x",
		"zylos-memory restore -- -odd --at r":                         "zylos-memory restore -- -odd --at r",
		"zylos-memory":                                                "zylos-memory",
	}
	for in, want := range cases {
		if got := strings.Join(journalArgs(strings.Fields(in)), " "); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
}
