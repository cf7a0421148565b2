package integration

import (
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// BenchmarkHookPromptTeamSyncing times the prompt hook while nothing
// syncs (idle-ms) and while team syncs with nothing new run back to back
// (syncing-ms), on a home of a team of two with 100 entries each; and the
// idle sync itself (sync-ms).
func BenchmarkHookPromptTeamSyncing(b *testing.B) {
	zylos := stormHome(b)
	testutil.ScanBinary(b)
	remote := bareTeamRemote(b)
	home := &teamHome{name: "bench", zylos: zylos, r: testutil.Run{ZylosDir: zylos, Timeout: 2 * time.Minute}}
	if res := home.r.Exec(b, "team", "join", remote, "--name", "bench"); res.Code != 0 {
		b.Fatalf("join: %+v", res)
	}
	other := joinTeam(b, remote, "other")
	for i := 0; i < 100; i++ {
		other.write(b, "decision", fmt.Sprintf("other-%03d", i), fmt.Sprintf("Other decision %d", i), "text")
	}
	other.sync(b)
	home.sync(b)
	other.sync(b)
	var syncing atomic.Bool
	var syncs atomic.Int64
	var syncTime atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if !syncing.Load() {
				time.Sleep(time.Millisecond)
				continue
			}
			t0 := time.Now()
			cmd := exec.Command(testutil.Binary(b), "team", "sync")
			cmd.Env = home.r.Environ()
			if out, err := cmd.CombinedOutput(); err != nil {
				panic(fmt.Sprintf("team sync: %v: %s", err, out))
			}
			syncTime.Add(int64(time.Since(t0)))
			syncs.Add(1)
		}
	}()
	defer func() { close(stop); <-done }()
	run := testutil.Run{ZylosDir: zylos, Stdin: `{"prompt":"what did we decide about the kafka consumer lag?"}`}
	hook := func() time.Duration {
		t0 := time.Now()
		if res := run.Exec(b, "hook", "user-prompt-submit"); !strings.Contains(res.Stdout, "kafka") {
			b.Fatalf("hook answered %+v", res)
		}
		return time.Since(t0)
	}
	var idle, loaded time.Duration
	for b.Loop() {
		syncing.Store(false)
		time.Sleep(100 * time.Millisecond) // the sync under way ends
		idle += hook()
		syncing.Store(true)
		time.Sleep(5 * time.Millisecond)
		loaded += hook()
	}
	syncing.Store(false)
	b.ReportMetric(ms(idle)/float64(b.N), "idle-ms")
	b.ReportMetric(ms(loaded)/float64(b.N), "syncing-ms")
	if n := syncs.Load(); n > 0 {
		b.ReportMetric(ms(time.Duration(syncTime.Load()))/float64(n), "sync-ms")
	}
}
