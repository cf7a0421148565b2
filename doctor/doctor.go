package doctor

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/hooks/resident"
	"github.com/zylos/zylos-memory/internal/check"
	"github.com/zylos/zylos-memory/internal/regfile"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/home"
)

// Check statuses, as doctor prints them (see package check).
const (
	OK   = check.OK
	Warn = check.Warn
	Fail = check.Fail
)

// Check is one line of the doctor's report.
type Check = check.Check

// WriteReport prints one line per check and tells whether any failed.
func WriteReport(w io.Writer, checks []Check) (failed bool) {
	for _, c := range checks {
		fmt.Fprintln(w, c)
		failed = failed || c.Status == Fail
	}
	return failed
}

// Diagnose checks a home: its dirs, core.md, the C4 and scheduler
// databases, that every hook is registered, points at an executable
// and answers within its timeout, and that the MCP server answers.
//
// The C4 backlog is weighed against the layout's own sync threshold; Home
// checks an opened home with its settings.
func Diagnose(l tiers.Layout) []Check {
	return diagnose(l, checkC4(l))
}

// Home is the whole list of checks doctor prints and the memory service
// shows, for a home opened with its settings: Diagnose's, the C4 backlog
// against the sync threshold the hooks and memory_status use, the hook
// service's, then more (the dashboard's own, which imports this
// package), then the memory journal's, then the team's (see Team).
func Home(ctx context.Context, h *home.Home, more ...Check) []Check {
	c4 := c4Backlog(h.Layout, h.Settings.SyncThreshold)
	if err := h.Settings.ThresholdErr; err != nil && c4.Status == OK {
		// The hooks and memory_status ignore it as the doctor does; say so.
		c4 = line(Warn, c4.Name, fmt.Sprintf("%s; %v, so the layout's %d is used", c4.Detail, err, h.Settings.SyncThreshold))
	}
	checks := append(diagnose(h.Layout, c4), resident.Diagnose(h.Layout))
	checks = append(checks, more...)
	loc, err := h.Layout.Location()
	if err != nil {
		loc = time.Local // as the service shows its own times
	}
	for _, l := range h.Journal().State(ctx, true).Lines(loc) {
		checks = append(checks, Check{Status: l[0], Name: l[1], Detail: l[2]})
	}
	return append(checks, Team(h.Layout, h.Now(), loc, h.Settings.TeamPeriod)...)
}

func diagnose(l tiers.Layout, c4 Check) []Check {
	checks := []Check{checkDirs(l), checkPrivate(l)}
	checks = append(checks, checkInjected(l)...)
	checks = append(checks, c4, checkSchedulerDB(l))
	checks = append(checks, checkHooks(l)...)
	return append(checks, checkMCP(l)...)
}

func checkDirs(l tiers.Layout) Check {
	for _, dir := range []string{l.MemoryDir(), l.ReferenceDir(), l.SessionsDir(), l.ArchiveDir()} {
		st, err := os.Stat(dir)
		if err != nil {
			return line(Fail, "dirs", fmt.Sprintf("%s: %v (run: zylos-memory init)", dir, err))
		}
		if !st.IsDir() {
			return line(Fail, "dirs", dir+" is not a directory")
		}
	}
	return line(OK, "dirs", l.MemoryDir()+" with reference/, sessions/, archive/")
}

// checkPrivate checks that the memory and the C4 database are closed to
// group and others, unless the home is shared on purpose.
func checkPrivate(l tiers.Layout) Check {
	gaps, total := l.PrivacyGaps(3)
	switch {
	case l.Shared():
		return line(OK, "private", "the home is shared on purpose ("+tiers.SharedVar+" in .env)")
	case total > 0:
		return line(Warn, "private", fmt.Sprintf("%s open to group or others (run: zylos-memory init, which makes it private; "+
			"or set %s=1 in .env for a home shared on purpose)", strings.Join(gaps, ", "), tiers.SharedVar))
	}
	return line(OK, "private", "memory/ and comm-bridge/ closed to group and others")
}

// checkInjected checks the layout's always-injected files against their
// budgets: a missing or unreadable one fails (session start would say so),
// one over its budget or early-warning size warns.
func checkInjected(l tiers.Layout) []Check {
	kind := l.Kind()
	budgets, err := kind.Budgets(l)
	if err != nil {
		return []Check{line(Fail, "memory files", err.Error())}
	}
	var out []Check
	for _, b := range budgets {
		path := filepath.Join(l.MemoryDir(), b.File)
		if b.Size >= 0 {
			f, err := regfile.Open(path)
			if err != nil {
				out = append(out, line(Fail, b.File, err.Error()))
				continue
			}
			f.Close()
		}
		switch {
		case b.Size < 0:
			out = append(out, line(Fail, b.File, "missing (run: zylos-memory init)"))
		case b.Size > b.Budget:
			out = append(out, line(Warn, b.File, fmt.Sprintf("%d bytes, over the %d-byte budget (run: %s)", b.Size, b.Budget, kind.BudgetAdvice)))
		case b.WarnAt > 0 && b.Size > b.WarnAt:
			out = append(out, line(Warn, b.File, fmt.Sprintf("%d bytes, near the %d-byte budget (audit on the next memory sync)", b.Size, b.Budget)))
		default:
			out = append(out, line(OK, b.File, fmt.Sprintf("%d of %d bytes", b.Size, b.Budget)))
		}
	}
	return out
}

// checkC4 is the C4 backlog against the layout's own sync threshold.
func checkC4(l tiers.Layout) Check { return c4Backlog(l, l.Kind().SyncThreshold) }

// c4Backlog checks the C4 database and warns when its backlog is over
// threshold.
func c4Backlog(l tiers.Layout, threshold int) Check {
	db, err := c4sync.Open(l.C4DB())
	if err != nil {
		return line(Fail, "c4 db", err.Error())
	}
	defer db.Close()
	r, err := db.Unsummarized()
	if err != nil {
		return line(Fail, "c4 db", err.Error())
	}
	status := OK
	if r.Count > int64(threshold) {
		status = Warn
	}
	return line(status, "c4 db", fmt.Sprintf("%s: %d unsummarized conversations", l.C4DB(), r.Count))
}

// line is a check of the report.
func line(status, name, detail string) Check {
	return Check{Status: status, Name: name, Detail: detail}
}
