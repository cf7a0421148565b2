package integration

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// A service killed by SIGKILL leaves its dashboard's address behind. When
// the next one serves no dashboard (--ui-addr=off, or an address it
// cannot bind), `ui` must not print the old address with the token: by
// then another user may listen there, and the browser would hand it the
// token.
func TestAttackUINamesNoAddressLeftByAKilledService(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, flag := range []string{"--ui-addr=off", "--ui-addr=" + taken.Addr().String()} {
		t.Run(flag, func(t *testing.T) {
			zylos := hookHome(t, 1)
			stale := "127.0.0.1:1\n" // the killed service's, another user's now
			if err := os.WriteFile(filepath.Join(zylos, "memory", ".state", "dashboard.addr"), []byte(stale), 0o600); err != nil {
				t.Fatal(err)
			}
			startDaemonEnv(t, zylos, nil, flag)
			res := testutil.Run{ZylosDir: zylos}.Exec(t, "ui")
			if res.Code != 1 || strings.Contains(res.Stdout, "token=") || !strings.Contains(res.Stderr, "the dashboard is not being served") {
				t.Errorf("ui: %+v", res)
			}
			if res := (testutil.Run{ZylosDir: zylos}).Exec(t, "doctor"); strings.Contains(res.Stdout, "127.0.0.1:1") {
				t.Errorf("doctor names the old address:\n%s", res.Stdout)
			}
		})
	}
}
