package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestServiceAnswersSessionStartCommands: zylos's own session start runs
// `inject` and `c4 session-init` in every session; the memory service
// answers them as it answers the hooks (the Go runtime of the process
// never starts), with exactly what the process prints, in a v2 and a
// v0.7 home. What it cannot answer exactly it leaves to the process: other
// arguments, a C4 database the process would create, a threshold setting
// the service does not read as surely as the process.
func TestServiceAnswersSessionStartCommands(t *testing.T) {
	v07 := v07Tree(t, sampleIdentity, sampleState, sampleReferences)
	if res := (testutil.Run{ZylosDir: v07}).Exec(t, "c4", "init"); res.Code != 0 {
		t.Fatalf("c4 init: %+v", res)
	}
	db := rawDB(t, filepath.Join(v07, "comm-bridge", "c4.db"))
	insertConvs(t, db, numbered(17))
	db.Close()
	homes := map[string]string{"v2": residentHome(t), "v07": v07}
	type call struct {
		hookCall
		served bool
	}
	cases := map[string]func(zylos string) call{
		"inject":               func(string) call { return call{hookCall{args: args("inject")}, true} },
		"session-start-inject": func(string) call { return call{hookCall{args: args("session-start-inject")}, true} },
		"c4 session-init":      func(string) call { return call{hookCall{args: args("c4 session-init")}, true} },
		"zylos-dir flag": func(zylos string) call {
			return call{hookCall{args: []string{"--zylos-dir=" + zylos, "c4", "session-init"}, env: []string{"ZYLOS_DIR="}}, true}
		},
		"threshold from the environment": func(string) call {
			return call{hookCall{args: args("c4 session-init"), env: []string{"C4_SYNC_THRESHOLD=2"}}, true}
		},
		"threshold the service leaves": func(string) call {
			return call{hookCall{args: args("c4 session-init"), env: []string{"C4_SYNC_THRESHOLD=0x10"}}, false}
		},
		"other arguments": func(string) call { return call{hookCall{args: args("inject --format claude")}, false} },
		"help":            func(string) call { return call{hookCall{args: args("c4 session-init --help")}, false} },
	}
	for layout, zylos := range homes {
		inProcess := map[string]hookResult{}
		for name, c := range cases {
			inProcess[name] = c(zylos).run(t, zylos)
		}
		startService(t, zylos)
		for name, c := range cases {
			t.Run(layout+"/"+name, func(t *testing.T) {
				want, cl := inProcess[name], c(zylos)
				got := cl.run(t, zylos)
				if got.goRan == cl.served {
					t.Errorf("answered by the service: %v, want %v (stderr %q)", !got.goRan, cl.served, got.Stderr)
				}
				if got.Result != want.Result {
					t.Errorf("the service answered\n%+v\nthe process\n%+v", got.Result, want.Result)
				}
			})
		}
		if res := inProcess["threshold from the environment"]; !strings.Contains(strings.ToLower(res.Stdout), "action required") {
			t.Errorf("%s: C4_SYNC_THRESHOLD=2 gave no trigger: %+v", layout, res)
		}
	}
}

// TestServiceCommandLeavesStdinAndNewDatabases: a command the service
// answers reads none of its stdin (the next reader of the pipe gets it
// all), and a home without its C4 database is left to the process, which
// creates it and says so.
func TestServiceCommandLeavesStdinAndNewDatabases(t *testing.T) {
	zylos := residentHome(t)
	startService(t, zylos)
	want := testutil.Run{ZylosDir: zylos}.Exec(t, "inject").Stdout + "left for the next reader\n"
	cmd := exec.Command("/bin/sh", "-c", `"$0" inject && cat`, testutil.Binary(t))
	cmd.Env = testutil.Run{ZylosDir: zylos, Env: []string{"GODEBUG=inittrace=1"}}.Environ()
	cmd.Stdin = strings.NewReader("left for the next reader\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || string(out) != want || strings.Contains(stderr.String(), "init runtime") {
		t.Errorf("inject then cat: %q, %v (stderr %.200q)", out, err, stderr.String())
	}
	if err := os.Remove(filepath.Join(zylos, "comm-bridge", "c4.db")); err != nil {
		t.Fatal(err)
	}
	first := hookCall{args: args("c4 session-init")}.run(t, zylos)
	if !first.goRan || first.Code != 0 || !strings.Contains(first.Stderr, "[C4-DB] Database initialized") {
		t.Errorf("a missing database: %+v (process ran: %v)", first.Result, first.goRan)
	}
	if again := (hookCall{args: args("c4 session-init")}).run(t, zylos); again.goRan || again.Stdout != first.Stdout {
		t.Errorf("once created, the service answers the same: %+v (process ran: %v)", again.Result, again.goRan)
	}
}

// BenchmarkSessionStartCommandsVsEmptyProgram times, in one run, the empty
// statically linked cgo program and each command zylos's session start
// runs, as a whole process, answered by the memory service (target: a
// ratio of at most 1.5); inproc-ms and inproc-ratio are the same commands
// on a twin home without the service.
func BenchmarkSessionStartCommandsVsEmptyProgram(b *testing.B) {
	empty := emptyCgoProgram(b)
	served, alone := stormHome(b), stormHome(b)
	startService(b, served)
	for _, command := range []string{"inject", "c4 session-init"} {
		b.Run(command, func(b *testing.B) {
			var emptyTime, servedTime, aloneTime time.Duration
			for b.Loop() {
				t0 := time.Now()
				if out, err := exec.Command(empty).CombinedOutput(); err != nil {
					b.Fatal(err, string(out))
				}
				t1 := time.Now()
				if res := (testutil.Run{ZylosDir: served}).Exec(b, args(command)...); res.Code != 0 {
					b.Fatalf("%s: %+v", command, res)
				}
				t2 := time.Now()
				(testutil.Run{ZylosDir: alone}).Exec(b, args(command)...)
				emptyTime += t1.Sub(t0)
				servedTime += t2.Sub(t1)
				aloneTime += time.Since(t2)
			}
			reportVsEmpty(b, "command-ms", emptyTime, servedTime, aloneTime)
		})
	}
}
