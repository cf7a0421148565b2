package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// Rotations while another process appends lines to current.md with >>
// (as the session hooks do) keep every line in exactly one log.
func TestRotateKeepsLinesOfConcurrentAppender(t *testing.T) {
	home := filepath.Join(t.TempDir(), "zylos")
	tree{"memory/sessions/current.md": "# Session Log: 2026-03-01\n\n"}.build(t, home)
	sessions := filepath.Join(home, "memory", "sessions")
	stop := filepath.Join(t.TempDir(), "stop")
	// The appender runs until the rotations are over and says how many
	// lines it wrote.
	appender := exec.Command("sh", "-c",
		`i=0; while [ ! -e "$2" ]; do i=$((i+1)); echo "- l$i" >>"$1"; done; echo $i`,
		"sh", filepath.Join(sessions, "current.md"), stop)
	var count strings.Builder
	appender.Stdout = &count
	must(t, appender.Start())
	for day := 2; day <= 28; day++ {
		env := []string{fmt.Sprintf("ZYLOS_MEMORY_NOW=2026-03-%02dT00:00:01Z", day)}
		if res := (testutil.Run{ZylosDir: home, Env: env}).Exec(t, "rotate"); res.Code != 0 {
			t.Fatalf("rotate: exit %d: %s", res.Code, res.Stderr)
		}
	}
	must(t, os.WriteFile(stop, nil, 0o644))
	must(t, appender.Wait())
	lines, err := strconv.Atoi(strings.TrimSpace(count.String()))
	must(t, err)
	seen := map[string]int{}
	var logs []string
	logs, err = filepath.Glob(filepath.Join(sessions, "*.md"))
	must(t, err)
	for _, log := range logs {
		data, err := os.ReadFile(log)
		must(t, err)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "- l") {
				seen[line]++
			}
		}
	}
	lost, doubled := 0, 0
	for i := 1; i <= lines; i++ {
		switch seen[fmt.Sprintf("- l%d", i)] {
		case 0:
			lost++
		case 1:
		default:
			doubled++
		}
	}
	if lost+doubled > 0 || len(seen) != lines {
		t.Errorf("of %d appended lines %d are lost, %d in two logs, %d logged lines in all", lines, lost, doubled, len(seen))
	}
	if len(logs) < 3 {
		t.Errorf("only %d logs: the rotations did not overlap the appender", len(logs))
	}
}
