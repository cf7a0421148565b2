package integration

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// BenchmarkHookPromptConnectionFlood times the prompt hook the service
// answers while 1,000 connections without the token are held open to its
// dashboard, as another local user could, against the same hook before
// they were opened.
func BenchmarkHookPromptConnectionFlood(b *testing.B) {
	zylos := stormHome(b)
	startService(b, zylos)
	url := dashboardURL(b, zylos)
	addr := strings.TrimPrefix(url[:strings.Index(url, "/?")], "http://")
	run := testutil.Run{ZylosDir: zylos, Stdin: `{"prompt":"what did we decide about the kafka consumer lag?"}`}
	hook := func() time.Duration {
		t0 := time.Now()
		if res := run.Exec(b, "hook", "user-prompt-submit"); !strings.Contains(res.Stdout, "kafka") {
			b.Fatalf("hook answered %+v", res)
		}
		return time.Since(t0)
	}
	const warm = 20
	var idle time.Duration
	for range warm {
		idle += hook()
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 1000 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatalf("connection %d: %v", len(conns), err)
		}
		conns = append(conns, c)
	}
	var flooded time.Duration
	for b.Loop() {
		flooded += hook()
	}
	idleMS, floodMS := ms(idle)/warm, ms(flooded)/float64(b.N)
	b.ReportMetric(idleMS, "idle-ms")
	b.ReportMetric(floodMS, "flood-ms")
	b.ReportMetric(floodMS/idleMS, "ratio")
	if owner := browser(b); dashboardBase(b, owner, url) == "" {
		b.Fatal("the owner's dashboard does not answer")
	}
}

// rssKB is a process's resident memory.
func rssKB(tb testing.TB, pid int) int {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}

// BenchmarkServiceMemoryFlat runs mixed work against the service (each op
// a prompt hook; every tenth a Write committed by the PostToolUse hook;
// every fifth a page of the dashboard) and reports its resident memory
// after a warm-up of warmOps ops and at the end, and the growth:
// a service that runs for months must not grow with its history
// (-benchtime 10000x for the figure of docs/dashboard.md).
func BenchmarkServiceMemoryFlat(b *testing.B) {
	zylos := stormHome(b)
	d := startService(b, zylos)
	pid := d.cmd.Process.Pid
	client := browser(b)
	base := dashboardBase(b, client, dashboardURL(b, zylos))
	pages := []string{"/", "/timeline", "/charts", "/core", "/search?q=kafka", "/reference", "/sessions"}
	note := filepath.Join(zylos, "memory", "reference", "bench-notes.md")
	prompt := testutil.Run{ZylosDir: zylos, Stdin: `{"prompt":"what did we decide about the kafka consumer lag?"}`}
	write := testutil.Run{ZylosDir: zylos}
	const warmOps = 500 // b.N is not known inside b.Loop
	warm := 0
	i := 0
	for b.Loop() {
		if res := prompt.Exec(b, "hook", "user-prompt-submit"); res.Code != 0 {
			b.Fatalf("hook: %+v", res)
		}
		if i%10 == 0 {
			os.WriteFile(note, []byte(fmt.Sprintf("# Bench notes\n\n- note %d\n", i)), 0o644)
			write.Stdin = writePayload("s-bench", note)
			if res := write.Exec(b, "hook", "post-tool-use"); res.Code != 0 {
				b.Fatalf("post-tool-use: %+v", res)
			}
		}
		if i%5 == 0 {
			if resp, err := client.Get(base + pages[(i/5)%len(pages)]); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		i++
		if i == warmOps {
			warm = rssKB(b, pid)
		}
	}
	end := rssKB(b, pid)
	if warm == 0 {
		warm = end
	}
	b.ReportMetric(float64(warm)/1024, "rss-warm-MB")
	b.ReportMetric(float64(end)/1024, "rss-end-MB")
	b.ReportMetric(100*float64(end-warm)/float64(warm), "growth-%")
}
