package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tests build the binary themselves; if their flags drifted from the
// Makefile's, the benchmarks would time a binary no user runs.
func TestBuildFlagsMatchMakefile(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && (f[1] == ":=" || f[1] == "?=") {
			vars[f[0]] = f[2]
		}
	}
	if vars["TAGS"] != BuildTags || vars["LDFLAGS"] != BuildLDFlags {
		t.Errorf("Makefile builds with TAGS %q LDFLAGS %q, the tests with %q %q",
			vars["TAGS"], vars["LDFLAGS"], BuildTags, BuildLDFlags)
	}
}
