package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// stormSize is how many prompt hooks a storm starts at once.
const stormSize = 200

// BenchmarkHookStorm200 starts 200 user-prompt-submit hooks at once on a
// home with session logs, records and a C4 database, and reports the p50
// and p99 of their wall times and how many answered nothing (each should
// answer: every prompt matches memory). The hook's own deadline is 800 ms.
func BenchmarkHookStorm200(b *testing.B) { benchmarkStorm(b, false) }

// BenchmarkHookStorm200Service is the storm with the home's memory
// service up: it answers 16 hooks at a time and queues the others within
// their deadlines; those it declines answer in their own processes
// (inproc/storm).
func BenchmarkHookStorm200Service(b *testing.B) { benchmarkStorm(b, true) }

func benchmarkStorm(b *testing.B, service bool) {
	zylos := stormHome(b)
	if service {
		startService(b, zylos)
	}
	bin := testutil.Binary(b)
	// A hook that answers in its own process prints its package inits.
	env := testutil.Run{ZylosDir: zylos, Env: []string{"GODEBUG=inittrace=1"}}.Environ()
	var all []time.Duration
	empty, inProcess := 0, 0
	cpu := testutil.ChildrenCPU()
	for b.Loop() {
		times, silent, own := storm(b, bin, env)
		inProcess += own
		all = append(all, times...)
		empty += silent
	}
	slices.Sort(all)
	b.ReportMetric(ms(all[len(all)/2]), "p50-ms")
	b.ReportMetric(ms(all[len(all)*99/100]), "p99-ms")
	b.ReportMetric(float64(empty)/float64(b.N), "empty/storm")
	b.ReportMetric(float64(inProcess)/float64(b.N), "inproc/storm")
	b.ReportMetric(ms(testutil.ChildrenCPU()-cpu)/float64(b.N*stormSize), "cpu-ms/hook")
}

// storm runs stormSize hooks together and returns their wall times, how
// many printed no context, and how many answered in their own process.
func storm(b *testing.B, bin string, env []string) (times []time.Duration, silent, own int) {
	var wg sync.WaitGroup
	times = make([]time.Duration, stormSize)
	empty := make([]bool, stormSize)
	inProcess := make([]bool, stormSize)
	start := make(chan struct{})
	for i := range stormSize {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "hook", "user-prompt-submit")
			cmd.Env = env
			// Input from a file, as a parent that writes it at once and
			// closes the pipe: a reader goroutine of this (starved) process
			// would time the harness, not the hook.
			in := filepath.Join(b.TempDir(), "in.json")
			if err := os.WriteFile(in, []byte(fmt.Sprintf(`{"prompt":"what did we decide about the kafka consumer lag on day %d?"}`, i)), 0o644); err != nil {
				b.Error(err)
				return
			}
			f, err := os.Open(in)
			if err != nil {
				b.Error(err)
				return
			}
			defer f.Close()
			cmd.Stdin = f
			var out, errOut bytes.Buffer
			cmd.Stdout = &out
			cmd.Stderr = &errOut
			<-start
			t0 := time.Now()
			if err := cmd.Run(); err != nil {
				b.Error(err)
			}
			times[i] = time.Since(t0)
			empty[i] = !strings.Contains(out.String(), "kafka")
			inProcess[i] = strings.Contains(errOut.String(), "init runtime")
			if empty[i] {
				b.Logf("silent hook after %v: %q %q", times[i], out.String(), withoutInits(errOut.String()))
			}
		}()
	}
	close(start)
	wg.Wait()
	for i := range stormSize {
		if empty[i] {
			silent++
		}
		if inProcess[i] {
			own++
		}
	}
	return times, silent, own
}

// withoutInits drops the lines GODEBUG=inittrace=1 adds to stderr.
func withoutInits(stderr string) string {
	var kept []string
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(line, "init ") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}

// stormHome is a home of a month of session logs and a C4 database of
// 1,000 conversations, its search index built.
func stormHome(tb testing.TB) string {
	zylos := hookHome(tb, 1000)
	for d := 1; d <= 30; d++ {
		var log strings.Builder
		fmt.Fprintf(&log, "# Session Log: 2026-02-%02d\n\n", d)
		for i := range 100 {
			fmt.Fprintf(&log, "**%02d:%02d** - worked on item %d of the kafka consumer and the billing queue\n", 8+i/10, i%60, i)
		}
		path := filepath.Join(zylos, "memory", "sessions", fmt.Sprintf("2026-02-%02d.md", d))
		if err := os.WriteFile(path, []byte(log.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
		// A past day's log was last written that day. Written now, every
		// log would be too fresh for the index to trust its time, and the
		// first hooks would index them all again.
		day := time.Date(2026, 2, d, 18, 0, 0, 0, time.UTC)
		if err := os.Chtimes(path, day, day); err != nil {
			tb.Fatal(err)
		}
	}
	if res := (testutil.Run{ZylosDir: zylos}).Exec(tb, "reindex"); res.Code != 0 {
		tb.Fatalf("reindex: %+v", res)
	}
	return zylos
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkHookVsEmptyProgram times, in one run, an empty statically
// linked cgo Go program and each hook on a typical home, each as a whole
// process, and reports their ratio (target: at most 1.5). The hooks run
// as users run them, the home's memory service up (`make run`), and are
// answered by the service; inproc-ms and inproc-ratio are the same hooks
// on a twin home without the service, answered in their own processes.
// The PostToolUse hook follows a Write of core.md, so its journal commits
// a change each time.
func BenchmarkHookVsEmptyProgram(b *testing.B) {
	empty := emptyCgoProgram(b)
	served, alone := stormHome(b), stormHome(b)
	startService(b, served)
	for _, h := range benchHooks {
		b.Run(h.command, func(b *testing.B) {
			runs := map[string]testutil.Run{}
			for _, zylos := range []string{served, alone} {
				runs[zylos] = testutil.Run{ZylosDir: zylos, Stdin: h.stdin(zylos)}
				if h.before != nil {
					h.before(b, zylos, 0)
				}
				if res := runs[zylos].Exec(b, "hook", h.command); !strings.Contains(res.Stdout, h.want) || res.Code != 0 {
					b.Fatalf("hook answered %+v", res)
				}
			}
			var emptyTime, servedTime, aloneTime time.Duration
			i := 0
			for b.Loop() {
				i++
				if h.before != nil {
					h.before(b, served, i)
					h.before(b, alone, i)
				}
				t0 := time.Now()
				if out, err := exec.Command(empty).CombinedOutput(); err != nil {
					b.Fatal(err, string(out))
				}
				t1 := time.Now()
				runs[served].Exec(b, "hook", h.command)
				t2 := time.Now()
				runs[alone].Exec(b, "hook", h.command)
				emptyTime += t1.Sub(t0)
				servedTime += t2.Sub(t1)
				aloneTime += time.Since(t2)
			}
			reportVsEmpty(b, "hook-ms", emptyTime, servedTime, aloneTime)
		})
	}
}

// reportVsEmpty reports the mean times of the empty program, of the
// process answered by the service (as unit) and of the process answering
// itself, and their ratios to the empty program.
func reportVsEmpty(b *testing.B, unit string, emptyTime, servedTime, aloneTime time.Duration) {
	b.ReportMetric(ms(emptyTime)/float64(b.N), "empty-ms")
	b.ReportMetric(ms(servedTime)/float64(b.N), unit)
	b.ReportMetric(float64(servedTime)/float64(emptyTime), "ratio")
	b.ReportMetric(ms(aloneTime)/float64(b.N), "inproc-ms")
	b.ReportMetric(float64(aloneTime)/float64(emptyTime), "inproc-ratio")
}

// benchHooks are the hooks BenchmarkHookVsEmptyProgram times, each with
// its payload, what its answer holds (a check that it did its work) and
// what the agent did before it.
var benchHooks = []struct {
	command string
	stdin   func(zylos string) string
	want    string
	before  func(tb testing.TB, zylos string, i int)
}{
	{command: "session-start", want: "additionalContext", stdin: func(string) string {
		return `{"session_id":"bench","hook_event_name":"SessionStart","source":"startup"}`
	}},
	{command: "user-prompt-submit", want: "kafka", stdin: func(string) string {
		return `{"prompt":"what did we decide about the kafka consumer lag?"}`
	}},
	{command: "pre-tool-use", want: `"deny"`, stdin: func(zylos string) string {
		return fmt.Sprintf(`{"session_id":"bench","tool_name":"Write","tool_input":{"file_path":%q}}`,
			filepath.Join(zylos, "memory", "records", "decisions", "x.json"))
	}},
	{command: "post-tool-use", stdin: func(zylos string) string {
		return writePayload("bench", filepath.Join(zylos, "memory", "core.md"))
	}, before: func(tb testing.TB, zylos string, i int) {
		core := filepath.Join(zylos, "memory", "core.md")
		f, err := os.OpenFile(core, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(f, "- bench fact %d\n", i)
		f.Close()
	}},
	// A reply with nothing to save: the triage reads the transcript and
	// lets the agent stop.
	{command: "stop", stdin: func(zylos string) string {
		return fmt.Sprintf(`{"session_id":"bench","transcript_path":%q,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done."}`,
			filepath.Join(filepath.Dir(zylos), "transcript.jsonl"))
	}, before: func(tb testing.TB, zylos string, i int) {
		if i == 0 {
			writeTranscriptJSONL(tb, filepath.Join(filepath.Dir(zylos), "transcript.jsonl"),
				[]string{"I read the consumer logs.", "The lag is back under a second.", "Done."})
		}
	}},
}

// emptyCgoProgram builds a main that calls one C function and does
// nothing else, linked as the binary is, and returns its path.
func emptyCgoProgram(b *testing.B) string {
	dir := b.TempDir()
	src := "package main\n\n// static int zero(void) { return 0; }\nimport \"C\"\n\nfunc main() { C.zero() }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module empty\n\ngo 1.22\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "empty")
	cmd := exec.Command("go", "build", "-tags", testutil.BuildTags, "-ldflags", testutil.BuildLDFlags, "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the empty program: %v\n%s", err, out)
	}
	return bin
}
