package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/fixture/c4fixture"
	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/hooks/register"
	"github.com/zylos/zylos-memory/scheduler"
	"github.com/zylos/zylos-memory/tiers"
)

func TestDoctorChecks(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) Check
		want  string
	}{
		{"core within budget", func(t *testing.T) Check {
			return checkInjected(c4fixture.Home{Core: c4fixture.SampleCore, Convs: -1}.Build(t))[0]
		}, "ok    core.md: 84 of 3072 bytes"},
		{"core over budget", func(t *testing.T) Check {
			return checkInjected(c4fixture.Home{Core: strings.Repeat("x", 4000), Convs: -1}.Build(t))[0]
		}, "warn  core.md: 4000 bytes, over the 3072-byte budget"},
		{"core is a directory", func(t *testing.T) Check {
			return checkInjected(c4fixture.Home{Core: "<dir>", Convs: -1}.Build(t))[0]
		}, "FAIL  core.md:"},
		{"core missing", func(t *testing.T) Check {
			return checkInjected(c4fixture.Home{Convs: -1}.Build(t))[0]
		}, "FAIL  core.md: missing (run: zylos-memory init)"},
		{"c4 over threshold", func(t *testing.T) Check {
			return checkC4(c4fixture.Home{Convs: 31}.Build(t))
		}, "warn  c4 db:"},
		{"c4 corrupt", func(t *testing.T) Check {
			return checkC4(c4fixture.Home{CorruptC4: true}.Build(t))
		}, "FAIL  c4 db:"},
		{"scheduler db corrupt", func(t *testing.T) Check {
			l := c4fixture.Home{Convs: -1}.Build(t)
			os.MkdirAll(filepath.Dir(scheduler.DBPath(l)), 0o700)
			os.WriteFile(scheduler.DBPath(l), []byte(strings.Repeat("junk", 2000)), 0o600)
			return checkSchedulerDB(l)
		}, "FAIL  scheduler db:"},
		{"not registered", func(t *testing.T) Check {
			return checkEvent(tiers.Layout{ZylosDir: "/z"}, hooks.Stop, nil)
		}, "FAIL  hook stop: not registered for Stop (run: zylos-memory init)"},
		{"registered twice", func(t *testing.T) Check {
			return checkEvent(tiers.Layout{ZylosDir: "/z"}, hooks.Stop, []register.Entry{{Command: "a", Timeout: time.Second}, {Command: "b", Timeout: time.Second}})
		}, "warn  hook stop: registered 2 times"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.setup(t).String(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("got  %q\nwant %q...", got, tt.want)
			}
		})
	}
}

// TestDoctorSchedulerDBLeavesNothing: the check reads a scheduler DB at
// rest without leaving a -wal or -shm file beside it.
func TestDoctorSchedulerDBLeavesNothing(t *testing.T) {
	l := c4fixture.Home{Convs: -1}.Build(t)
	s, err := scheduler.Open(l)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	dir := filepath.Dir(scheduler.DBPath(l))
	before, _ := os.ReadDir(dir)
	if got := checkSchedulerDB(l).String(); !strings.HasPrefix(got, "ok    scheduler db:") {
		t.Fatalf("check: %s", got)
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("check left files: %v -> %v", before, after)
	}
}

// TestDoctorV07Files: a v0.7 home is checked against v0.7.1's budgets, not
// for a core.md it does not have.
func TestDoctorV07Files(t *testing.T) {
	l := c4fixture.Home{Convs: -1}.Build(t)
	os.WriteFile(filepath.Join(l.MemoryDir(), "identity.md"), []byte(strings.Repeat("i", 17000)), 0o644)
	os.WriteFile(filepath.Join(l.MemoryDir(), "state.md"), []byte(strings.Repeat("s", 12000)), 0o644)
	var got []string
	for _, c := range Diagnose(l) {
		if s := c.String(); strings.Contains(s, ".md:") {
			got = append(got, s)
		}
	}
	want := []string{
		"warn  identity.md: 17000 bytes, over the 16384-byte budget (run: zylos-memory status)",
		"warn  state.md: 12000 bytes, near the 16384-byte budget (audit on the next memory sync)",
		"FAIL  references.md: missing (run: zylos-memory init)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
