package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// BenchmarkEachHookVsEmptyProgram times each hook as Claude Code runs it,
// a whole process, with the home's memory service up, against the empty
// statically linked cgo program run in the same loop (target: each hook
// at most 1.5 times the empty program). -ms is wall time; -cpu-ms the CPU
// time of the process and its children plus what the service spent
// meanwhile (from /proc), the steadier figure on a loaded machine.
// post-tool-use-journal is a Write of core.md, which the journal commits;
// post-tool-use a Write elsewhere.
func BenchmarkEachHookVsEmptyProgram(b *testing.B) {
	empty := emptyCgoProgram(b)
	bin := testutil.Binary(b)
	zylos := stormHome(b)
	d := startService(b, zylos)
	core := filepath.Join(zylos, "memory", "core.md")
	base, _ := os.ReadFile(core)
	r := testutil.Run{ZylosDir: zylos}
	hooks := []struct {
		name, command, stdin string
		before               func(i int)
	}{
		{"session-start", "session-start", `{"session_id":"bench","hook_event_name":"SessionStart","source":"startup"}`, nil},
		{"user-prompt-submit", "user-prompt-submit", `{"session_id":"bench","prompt":"what did we decide about the kafka consumer lag?"}`, nil},
		{"pre-tool-use", "pre-tool-use", `{"session_id":"bench","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/tmp/notes.txt","content":"x"},"cwd":"/"}`, nil},
		{"post-tool-use", "post-tool-use", writePayload("bench", "/tmp/notes.txt"), nil},
		{"post-tool-use-journal", "post-tool-use", writePayload("bench", core), func(i int) {
			os.WriteFile(core, append(base, fmt.Sprintf("- bench fact %d\n", i)...), 0o644)
		}},
		{"stop", "stop", `{"session_id":"bench","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}`, nil},
	}
	for _, h := range hooks {
		b.Run(h.name, func(b *testing.B) {
			run := r
			run.Stdin = h.stdin
			var emptyWall, emptyCPU, wall, cpu time.Duration
			i := 0
			for b.Loop() {
				i++
				if h.before != nil {
					h.before(i)
				}
				w, c := timed(b, testutil.Run{}, empty)
				emptyWall += w
				emptyCPU += c
				served := processCPU(b, d.cmd.Process.Pid)
				w, c = timed(b, run, bin, "hook", h.command)
				wall += w
				cpu += c + processCPU(b, d.cmd.Process.Pid) - served
			}
			n := float64(b.N)
			b.ReportMetric(ms(emptyWall)/n, "empty-ms")
			b.ReportMetric(ms(wall)/n, "hook-ms")
			b.ReportMetric(float64(wall)/float64(emptyWall), "ratio")
			b.ReportMetric(ms(emptyCPU)/n, "empty-cpu-ms")
			b.ReportMetric(ms(cpu)/n, "hook-cpu-ms")
			b.ReportMetric(float64(cpu)/float64(emptyCPU), "cpu-ratio")
		})
	}
}

// processCPU is the CPU time (user+system) process pid has used so far,
// its waited-for children included.
func processCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	f := strings.Fields(rest) // from field 3, state
	var ticks int64
	for _, k := range []int{11, 12, 13, 14} { // utime stime cutime cstime
		n, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			tb.Fatal(err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ 100
}
