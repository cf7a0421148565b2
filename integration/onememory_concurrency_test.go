package integration

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// activeDecisions maps each active decision record's title to its count.
func (h memHome) activeDecisions() map[string]int {
	h.t.Helper()
	files, _ := filepath.Glob(filepath.Join(h.root, "decisions", "*.json"))
	out := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			h.t.Fatal(err)
		}
		var d struct {
			Title  string `json:"title"`
			Status string `json:"record_status"`
		}
		if err := json.Unmarshal(data, &d); err != nil {
			h.t.Fatalf("torn record %s: %q", f, data)
		}
		if d.Status == "active" {
			out[d.Title]++
		}
	}
	return out
}

// TestOneMemoryConcurrentWritersAndIngests runs ingests, records writes and
// a hand appending to decisions.md at once. Nothing is lost or doubled:
// every decision ends up once in the markdown and once as a record.
func TestOneMemoryConcurrentWritersAndIngests(t *testing.T) {
	h := newMemHome(t)
	const rounds = 6
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				slug := fmt.Sprintf("written-%d-%d", w, i)
				in := h.stage("c-"+slug+".json", fmt.Sprintf(`{"title":"Written %d %d","tags":["w"],
 "content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`, w, i))
				res := testutil.Run{ZylosDir: h.zylos, Dir: h.zylos}.Exec(t, "records", "write", "--action", "create",
					"--category", "decision", "--target", "memory/records/decisions/"+slug+".json", "--input", in)
				if res.Code != 0 {
					errs <- "create " + slug + ": " + resultText(res)
				}
			}
		}()
	}
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				res := testutil.Run{ZylosDir: h.zylos, Dir: h.zylos}.Exec(t, "records", "ingest")
				if res.Code != 0 && !strings.Contains(res.Stderr, "LOCK_ERROR") {
					errs <- "ingest: " + resultText(res)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 3*rounds; i++ {
			f, err := os.OpenFile(h.path(decisionsMD), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				errs <- err.Error()
				return
			}
			fmt.Fprintf(f, "\n### [2026-03-01] Appended %d\n- **Decision:** x\n- **Status:** active\n", i)
			f.Close()
			time.Sleep(20 * time.Millisecond)
		}
	}()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	h.must(h.run(nil, "records", "ingest"), "final ingest")
	h.must(h.run(nil, "records", "index", "--validate"), "index --validate")
	md := h.read(decisionsMD)
	recs := h.activeDecisions()
	check := func(title string) {
		if n := strings.Count(md, "] "+title+"\n"); n != 1 {
			t.Errorf("%q is %d times in decisions.md", title, n)
		}
		if recs[title] != 1 {
			t.Errorf("%q has %d active records", title, recs[title])
		}
	}
	for i := 0; i < 3*rounds; i++ {
		check(fmt.Sprintf("Appended %d", i))
	}
	for w := 0; w < 2; w++ {
		for i := 0; i < rounds; i++ {
			check(fmt.Sprintf("Written %d %d", w, i))
		}
	}
}

var idLine = regexp.MustCompile(`(?m)^<!-- id: [a-z0-9-]+ -->\n`)

// TestIngestKill9 kills ingests of a large hand-written tier at random
// moments: decisions.md is always the old file or the new one, every
// record file parses, and the next ingest completes with one record per
// entry and a valid index.
func TestIngestKill9(t *testing.T) {
	h := newMemHome(t)
	var b strings.Builder
	b.WriteString("# Decisions Log\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "\n### [2026-03-01] Killed %d\n- **Decision:** x\n- **Status:** active\n", i)
	}
	orig := b.String()
	h.write(decisionsMD, orig)
	env := []string{"HOME=" + filepath.Dir(h.zylos), "ZYLOS_DIR=" + h.zylos, "TZ=UTC", "PATH=" + os.Getenv("PATH")}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 6; i++ {
		cmd := exec.Command(testutil.Binary(t), "records", "ingest")
		cmd.Env, cmd.Dir = env, h.zylos
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.Intn(300)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if got := h.read(decisionsMD); idLine.ReplaceAllString(got, "") != orig {
			t.Fatalf("after kill %d decisions.md is torn:\n%s", i, got)
		}
		h.activeDecisions() // every record file parses
	}
	h.must(h.run(nil, "records", "ingest"), "ingest after the kills")
	h.must(h.run(nil, "records", "index", "--validate"), "index --validate")
	recs := h.activeDecisions()
	md := h.read(decisionsMD)
	for i := 0; i < 200; i++ {
		title := fmt.Sprintf("Killed %d", i)
		if recs[title] != 1 {
			t.Errorf("%q has %d active records", title, recs[title])
		}
	}
	if n := len(idLine.FindAllString(md, -1)); n != 200 {
		t.Errorf("%d id comments in decisions.md, want 200", n)
	}
}
