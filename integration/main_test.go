package integration

import (
	"os"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
