package doctor

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/regfile"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

// Check statuses, as doctor prints them.
const (
	OK   = "ok"
	Warn = "warn"
	Fail = "FAIL"
)

// Check is one line of the doctor's report.
type Check struct {
	Status string
	Name   string
	Detail string
}

func (c Check) String() string { return fmt.Sprintf("%-4s  %s: %s", c.Status, c.Name, c.Detail) }

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
func Diagnose(l tiers.Layout) []Check {
	checks := []Check{checkDirs(l), checkPrivate(l)}
	checks = append(checks, checkInjected(l)...)
	checks = append(checks, checkC4(l), checkSchedulerDB(l))
	checks = append(checks, checkHooks(l)...)
	return append(checks, checkMCP(l)...)
}

func checkDirs(l tiers.Layout) Check {
	for _, dir := range []string{l.MemoryDir(), l.ReferenceDir(), l.SessionsDir(), l.ArchiveDir()} {
		st, err := os.Stat(dir)
		if err != nil {
			return Check{Fail, "dirs", fmt.Sprintf("%s: %v (run: zylos-memory init)", dir, err)}
		}
		if !st.IsDir() {
			return Check{Fail, "dirs", dir + " is not a directory"}
		}
	}
	return Check{OK, "dirs", l.MemoryDir() + " with reference/, sessions/, archive/"}
}

// checkPrivate checks that the memory and the C4 database are closed to
// group and others, unless the home is shared on purpose.
func checkPrivate(l tiers.Layout) Check {
	gaps, total := l.PrivacyGaps(3)
	switch {
	case l.Shared():
		return Check{OK, "private", "the home is shared on purpose (" + tiers.SharedVar + " in .env)"}
	case total > 0:
		return Check{Warn, "private", fmt.Sprintf("%s open to group or others (run: zylos-memory init, which makes it private; "+
			"or set %s=1 in .env for a home shared on purpose)", strings.Join(gaps, ", "), tiers.SharedVar)}
	}
	return Check{OK, "private", "memory/ and comm-bridge/ closed to group and others"}
}

// checkInjected checks the layout's always-injected files against their
// budgets: a missing or unreadable one fails (session start would say so),
// one over its budget or early-warning size warns.
func checkInjected(l tiers.Layout) []Check {
	kind := l.Kind()
	budgets, err := kind.Budgets(l)
	if err != nil {
		return []Check{{Fail, "memory files", err.Error()}}
	}
	var out []Check
	for _, b := range budgets {
		path := filepath.Join(l.MemoryDir(), b.File)
		if b.Size >= 0 {
			f, err := regfile.Open(path)
			if err != nil {
				out = append(out, Check{Fail, b.File, err.Error()})
				continue
			}
			f.Close()
		}
		switch {
		case b.Size < 0:
			out = append(out, Check{Fail, b.File, "missing (run: zylos-memory init)"})
		case b.Size > b.Budget:
			out = append(out, Check{Warn, b.File, fmt.Sprintf("%d bytes, over the %d-byte budget (run: %s)", b.Size, b.Budget, kind.BudgetAdvice)})
		case b.WarnAt > 0 && b.Size > b.WarnAt:
			out = append(out, Check{Warn, b.File, fmt.Sprintf("%d bytes, near the %d-byte budget (audit on the next memory sync)", b.Size, b.Budget)})
		default:
			out = append(out, Check{OK, b.File, fmt.Sprintf("%d of %d bytes", b.Size, b.Budget)})
		}
	}
	return out
}

func checkC4(l tiers.Layout) Check {
	db, err := c4sync.Open(l.C4DB())
	if err != nil {
		return Check{Fail, "c4 db", err.Error()}
	}
	defer db.Close()
	r, err := db.Unsummarized()
	if err != nil {
		return Check{Fail, "c4 db", err.Error()}
	}
	status := OK
	if r.Count > int64(l.Kind().SyncThreshold) {
		status = Warn
	}
	return Check{status, "c4 db", fmt.Sprintf("%s: %d unsummarized conversations", l.C4DB(), r.Count)}
}
