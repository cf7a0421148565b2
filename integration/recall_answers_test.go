package integration

import (
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestSearchLongQueryIsNotEchoed: a 128 KB query that matches nothing is
// repeated by its start only.
func TestSearchLongQueryIsNotEchoed(t *testing.T) {
	zd := searchHome(t)
	res := testutil.Run{ZylosDir: zd}.Exec(t, "search", strings.Repeat("xylophone ", 128<<10/10))
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, `Nothing in memory matches "xylophone xylophone`) ||
		len(res.Stdout) > 200 || !strings.HasSuffix(res.Stdout, "…\"\n") {
		t.Errorf("exit %d, %d bytes: %.300q", res.Code, len(res.Stdout), res.Stdout)
	}
}
