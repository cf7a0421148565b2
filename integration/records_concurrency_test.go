package integration

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// recCreate creates a decision record through the binary.
func (h *recHome) create(slug, title string) {
	h.t.Helper()
	in := h.stage("create-"+slug+".json", fmt.Sprintf(`{"title":%q,"tags":["shared"],
 "content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`, title))
	res := h.run(nil, "records", "write", "--action", "create", "--category", "decision",
		"--target", "memory/records/decisions/"+slug+".json", "--input", in)
	if res.Code != 0 {
		h.t.Fatalf("create %s: %s%s", slug, res.Stdout, res.Stderr)
	}
}

// updateOnce reads rel, appends a change entry named mark and submits it
// with the hash it read. It reports whether the update landed.
func (h *recHome) updateOnce(rel, mark string) (landed bool, err error) {
	data, err := os.ReadFile(filepath.Join(h.zylos, rel))
	if err != nil {
		return false, err
	}
	var d map[string]any
	if err := json.Unmarshal(data, &d); err != nil {
		return false, fmt.Errorf("torn read of %s: %v", rel, err)
	}
	withChange(d)
	changes := d["changes"].([]any)
	changes[len(changes)-1].(map[string]any)["summary"] = mark
	out, _ := json.Marshal(d)
	in := filepath.Join(h.stg, "input-"+mark+".json")
	if err := os.WriteFile(in, out, 0o644); err != nil {
		return false, err
	}
	res := testutil.Run{ZylosDir: h.zylos, Dir: h.zylos}.Exec(h.t, "records", "write", "--action", "update",
		"--target", rel, "--input", in, "--hash", md5hex(data))
	switch {
	case res.Code == 0 && strings.Contains(res.Stdout, `"status": "updated"`):
		return true, nil
	case res.Code == 1 && strings.HasPrefix(res.Stdout, "OCC_CONFLICT"):
		return false, nil
	}
	return false, fmt.Errorf("update %s: exit %d: %s%s", mark, res.Code, res.Stdout, res.Stderr)
}

// TestRecordsConcurrentUpdates: 8 processes update the same two records
// with --hash. Every attempt lands or gets OCC_CONFLICT; every landed
// change is in the file; the index matches the files.
func TestRecordsConcurrentUpdates(t *testing.T) {
	h := newRecHome(t)
	targets := []string{"memory/records/decisions/alpha.json", "memory/records/decisions/beta.json"}
	h.create("alpha", "Alpha")
	h.create("beta", "Beta")
	const workers, rounds = 8, 5
	var mu sync.Mutex
	landed := map[string][]string{}
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				rel := targets[(w+r)%len(targets)]
				mark := fmt.Sprintf("w%d-r%d", w, r)
				ok, err := h.updateOnce(rel, mark)
				if err != nil {
					errs <- err
					continue
				}
				if ok {
					mu.Lock()
					landed[rel] = append(landed[rel], mark)
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	total := 0
	for _, rel := range targets {
		var rec struct {
			TimesUpdated int `json:"times_updated"`
			Changes      []struct{ Summary string }
		}
		data, _ := os.ReadFile(filepath.Join(h.zylos, rel))
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		var summaries []string
		for _, c := range rec.Changes {
			summaries = append(summaries, c.Summary)
		}
		for _, mark := range landed[rel] {
			if !strings.Contains(strings.Join(summaries, " "), mark) {
				t.Errorf("%s: landed update %s lost", rel, mark)
			}
		}
		if rec.TimesUpdated != len(landed[rel]) {
			t.Errorf("%s: times_updated %d, landed %d", rel, rec.TimesUpdated, len(landed[rel]))
		}
		total += len(landed[rel])
	}
	if total == 0 {
		t.Fatal("no update landed")
	}
	if res := h.run(nil, "records", "index", "--validate"); res.Code != 0 {
		t.Fatalf("index drifted: %s", res.Stdout)
	}
	t.Logf("%d of %d updates landed, the rest got OCC_CONFLICT", total, workers*rounds)
}

// TestRecordsKill9 kills writers at random moments. Every record file
// left behind parses, and the index rebuilds to a stable, valid state.
func TestRecordsKill9(t *testing.T) {
	h := newRecHome(t)
	h.create("alpha", "Alpha")
	bin := testutil.Binary(t)
	rng := rand.New(rand.NewSource(1))
	env := []string{"HOME=" + filepath.Dir(h.zylos), "ZYLOS_DIR=" + h.zylos, "TZ=UTC", "PATH=" + os.Getenv("PATH")}
	for i := 0; i < 20; i++ {
		var cmds []*exec.Cmd
		for j := 0; j < 4; j++ {
			var args []string
			if j%2 == 0 {
				slug := fmt.Sprintf("k-%d-%d", i, j)
				in := h.stage("kill-"+slug+".json", fmt.Sprintf(`{"title":"Kill %d %d","tags":["k"],
 "content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`, i, j))
				args = []string{"records", "write", "--action", "create", "--category", "decision",
					"--target", "memory/records/decisions/" + slug + ".json", "--input", in}
			} else {
				args = []string{"records", "write", "--action", "retire", "--target",
					fmt.Sprintf("memory/records/decisions/k-%d-0.json", i-1)}
			}
			cmd := exec.Command(bin, args...)
			cmd.Env, cmd.Dir = env, h.zylos
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		time.Sleep(time.Duration(50+rng.Intn(250)) * time.Millisecond)
		for _, c := range cmds {
			c.Process.Signal(syscall.SIGKILL)
			c.Wait()
		}
	}
	files, _ := filepath.Glob(filepath.Join(h.root, "decisions", "*.json"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if !json.Valid(data) {
			t.Errorf("torn record %s: %q", f, data)
		}
	}
	if res := h.run(nil, "records", "index", "--rebuild"); res.Code != 0 {
		t.Fatalf("rebuild: %+v", res)
	}
	first, _ := os.ReadFile(filepath.Join(h.root, "index.md"))
	h.run(nil, "records", "index", "--rebuild")
	second, _ := os.ReadFile(filepath.Join(h.root, "index.md"))
	if string(first) != string(second) {
		t.Fatal("index rebuild is not stable")
	}
	if res := h.run(nil, "records", "index", "--validate"); res.Code != 0 {
		t.Fatalf("validate after rebuild: %s", res.Stdout)
	}
	t.Logf("%d record files survived the kills", len(files))
}
