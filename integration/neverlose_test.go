package integration

import (
	"encoding/json"
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

// A record keeps taking content updates past the changes[] cap of 50: the
// automatic change entry counts as new before the cap drops the oldest.
func TestRecordUpdatesPastChangesCap(t *testing.T) {
	h := newRecHome(t)
	res := h.run(nil, "records", "write", "--action", "create", "--category", "decision", "--target", recJWT,
		"--input", h.stage("in.json", recDecision))
	if res.Code != 0 {
		t.Fatalf("create: exit %d: %s%s", res.Code, res.Stdout, res.Stderr)
	}
	for i := 1; i <= 60; i++ {
		context := fmt.Sprintf("context %d", i)
		in := h.edit(recJWT, func(d map[string]any) {
			d["content"].(map[string]any)["context"] = context
			if i%2 == 0 {
				withChange(d)
			}
		})
		res := h.run(nil, "records", "write", "--action", "update", "--target", recJWT, "--hash", h.hash(recJWT), "--input", in)
		if res.Code != 0 {
			t.Fatalf("update %d: exit %d: %s%s", i, res.Code, res.Stdout, res.Stderr)
		}
	}
	var d struct {
		Content      map[string]any
		Changes      []map[string]any
		TimesUpdated int `json:"times_updated"`
	}
	data, err := os.ReadFile(filepath.Join(h.zylos, recJWT))
	must(t, err)
	must(t, json.Unmarshal(data, &d))
	if d.Content["context"] != "context 60" || len(d.Changes) != 50 || d.TimesUpdated != 60 {
		t.Errorf("context %q, %d changes, times_updated %d; want context 60, 50, 60", d.Content["context"], len(d.Changes), d.TimesUpdated)
	}
	if last := d.Changes[len(d.Changes)-1]; last["summary"] != "Updated content.context" || last["new_value"] != "context 60" {
		t.Errorf("newest change = %v", last)
	}
}
