package integration

import (
	"os"
	"testing"

	"github.com/zylos/zylos-memory/internal/benchtree"
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
