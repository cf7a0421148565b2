package dashboard

import (
	"fmt"
	"net"
	"strings"

	"github.com/zylos/zylos-memory/doctor"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/scheduler"
	"github.com/zylos/zylos-memory/tiers"
)

// Diagnose is the doctor's line on the dashboard: where the running
// service serves it, and a warning when that is not the loopback
// interface.
func Diagnose(l tiers.Layout) doctor.Check {
	const name = "dashboard"
	if running, _ := scheduler.Running(l); !running {
		return doctor.Check{Status: doctor.OK, Name: name, Detail: "served by the memory service when it runs (zylos-memory scheduler run)"}
	}
	data, err := regfile.ReadFile(AddrPath(l))
	if err != nil {
		return doctor.Check{Status: doctor.OK, Name: name, Detail: "not served (the service runs with --ui-addr=off)"}
	}
	addr := strings.TrimSpace(string(data))
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return doctor.Check{Status: doctor.Warn, Name: name, Detail: fmt.Sprintf(
			"served on %s, not the loopback interface: anyone who reaches it with the token reads this memory (restart the service without --ui-addr)", addr)}
	}
	return doctor.Check{Status: doctor.OK, Name: name, Detail: fmt.Sprintf("served on http://%s (run: zylos-memory ui)", addr)}
}
