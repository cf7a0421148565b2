package integration

import (
	"os"
	"testing"

	"github.com/zylos/zylos-memory/fixture/benchtree"
	"github.com/zylos/zylos-memory/internal/testutil"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(foreignListenerEnv); path != "" {
		os.Exit(foreignListener(path))
	}
	code := testutil.Main(m)
	benchtree.Cleanup()
	os.Exit(code)
}

// appendFile appends text to an existing file, as an editor or a logger
// that never rewrites it does.
func appendFile(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
