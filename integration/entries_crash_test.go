package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// crashHome holds 60 old session logs and 300 decisions, two thirds of
// them stale, so that an apply takes long enough to be killed midway.
func crashHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "zylos")
	mem := filepath.Join(home, "memory")
	for _, d := range []string{"sessions", "reference"} {
		if err := os.MkdirAll(filepath.Join(mem, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	first := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 60; i++ {
		day := first.AddDate(0, 0, i).Format("2006-01-02")
		os.WriteFile(filepath.Join(mem, "sessions", day+".md"), []byte("# Session Log: "+day+"\n"), 0o644)
	}
	var d strings.Builder
	d.WriteString("# Decisions Log\n\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&d, "### [%s] Decision %03d\n- **Decision:** x\n- **Status:** %s\n\n",
			first.AddDate(0, 0, i).Format("2006-01-02"), i, []string{"archived", "active", "superseded"}[i%3])
	}
	os.WriteFile(filepath.Join(mem, "reference", "decisions.md"), []byte(d.String()), 0o644)
	return home
}

// TestConsolidateApplyKilled kills apply with SIGKILL at different moments
// (a whole run takes about 200 ms here, most of it fsyncs, so the delays
// land before, during and after the session moves and the rewrites),
// reruns it to completion, and checks that every decision and session log
// exists exactly once outside the backups.
func TestConsolidateApplyKilled(t *testing.T) {
	for _, delay := range []time.Duration{30, 60, 90, 120, 150, 200, 300} {
		t.Run(fmt.Sprint(delay*time.Millisecond), func(t *testing.T) {
			home := crashHome(t)
			cmd := exec.Command(testutil.Binary(t), "--zylos-dir", home, "consolidate", "--apply")
			cmd.Env = append(os.Environ(), "TZ=UTC", "ZYLOS_MEMORY_NOW=2026-03-15T10:30:00Z")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay * time.Millisecond)
			cmd.Process.Kill()
			cmd.Wait()
			if res := (testutil.Run{ZylosDir: home}).Exec(t, "consolidate", "--apply"); res.Code != 0 {
				t.Fatalf("rerun after kill: %s", resultText(res))
			}
			checkEachOnce(t, filepath.Join(home, "memory"))
		})
	}
}

func checkEachOnce(t *testing.T, mem string) {
	t.Helper()
	var text strings.Builder
	for _, pattern := range []string{"reference/*.md", "archive/*.md", "sessions/*.md"} {
		files, _ := filepath.Glob(filepath.Join(mem, pattern))
		for _, f := range files {
			data, _ := os.ReadFile(f)
			text.Write(data)
		}
	}
	all := text.String()
	for i := 0; i < 300; i++ {
		if n := strings.Count(all, fmt.Sprintf("] Decision %03d\n", i)); n != 1 {
			t.Errorf("Decision %03d found %d times", i, n)
		}
	}
	first := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 60; i++ {
		day := first.AddDate(0, 0, i).Format("2006-01-02")
		if n := strings.Count(all, "# Session Log: "+day+"\n"); n != 1 {
			t.Errorf("session %s found %d times", day, n)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(mem, "sessions", "2025-*.md")); len(left) > 0 {
		t.Errorf("old sessions left after a completed run: %v", left)
	}
}

// TestConsolidateApplyKilledAtPoints kills apply at named points: after it
// wrote the archive file and before it rewrote the reference file, and
// inside each of its atomic writes in turn. The next command, a records
// ingest (which gives the entries over its create bound their ids, so that
// the reference copy of an entry no longer reads like its archived copy)
// or an edit of an archived entry's reference copy, must not make the
// rerun archive the entry twice: every entry ends up once, in the right
// file, with one id naming a record in the matching state.
func TestConsolidateApplyKilledAtPoints(t *testing.T) {
	points := []string{"consolidate-archived"}
	for n := 1; n <= 8; n++ {
		points = append(points, fmt.Sprintf("atomicfile-before-rename#%d", n))
	}
	edit := func(t *testing.T, home string) {
		// The reference copy of Decision 000 (id given by the first
		// ingest) changes after its archived copy was written.
		p := filepath.Join(home, "memory", "reference", "decisions.md")
		data, err := os.ReadFile(p)
		must(t, err)
		at := strings.Index(string(data), "] Decision 000\n")
		if at < 0 {
			t.Fatalf("Decision 000 left the reference file:\n%.300s", data)
		}
		edited := strings.Replace(string(data[at:]), "- **Decision:** x", "- **Decision:** x, revised", 1)
		must(t, os.WriteFile(p, append(data[:at:at], edited...), 0o644))
	}
	for _, point := range points {
		betweens := []string{"rerun", "ingest"}
		if point == "consolidate-archived" {
			// Elsewhere an edit meets no archived copy: before the archive
			// is written, or after the reference file lost the entry.
			betweens = append(betweens, "edit")
		}
		for _, between := range betweens {
			t.Run(point+"/"+between, func(t *testing.T) {
				home := crashHome(t)
				run := testutil.Run{ZylosDir: home}
				killed := testutil.Run{ZylosDir: home, Env: []string{crashpoint.Env + "=" + point}}.Exec(t, "consolidate", "--apply")
				if killed.Code != -1 {
					t.Fatalf("not killed at %s: %s", point, resultText(killed))
				}
				switch between {
				case "ingest":
					if res := run.Exec(t, "records", "ingest"); res.Code != 0 {
						t.Fatalf("ingest after kill: %s", resultText(res))
					}
				case "edit":
					edit(t, home)
				}
				if res := run.Exec(t, "consolidate", "--apply"); res.Code != 0 {
					t.Fatalf("rerun after kill: %s", resultText(res))
				}
				checkEachOnce(t, filepath.Join(home, "memory"))
				if res := run.Exec(t, "records", "ingest"); res.Code != 0 || !strings.HasPrefix(res.Stdout, "Nothing to ingest") {
					t.Errorf("ingest after the rerun: %s", resultText(res))
				}
				checkRecordsMatchView(t, home)
				if between == "edit" {
					archive, _ := os.ReadFile(filepath.Join(home, "memory", "archive", "decisions-2025.md"))
					if !strings.Contains(string(archive), "] Decision 000\n<!-- id: decision-000 -->\n- **Decision:** x, revised\n") {
						t.Errorf("the edit of Decision 000 is not what the archive holds:\n%.400s", archive)
					}
				}
			})
		}
	}
}

// checkRecordsMatchView holds that each id comment in the reference and
// archive files appears once and names a record that is active when its
// entry is in a reference file and archived when it is in an archive
// file, and that every decision record has its entry.
func checkRecordsMatchView(t *testing.T, home string) {
	t.Helper()
	mem := filepath.Join(home, "memory")
	where := map[string]string{}
	for _, dir := range []string{"reference", "archive"} {
		files, _ := filepath.Glob(filepath.Join(mem, dir, "*.md"))
		for _, f := range files {
			data, _ := os.ReadFile(f)
			for _, line := range strings.Split(string(data), "\n") {
				id, ok := strings.CutPrefix(line, "<!-- id: ")
				if !ok {
					continue
				}
				id = strings.TrimSuffix(id, " -->")
				if where[id] != "" {
					t.Errorf("id %s in %s and in %s", id, where[id], f)
				}
				where[id] = dir
			}
		}
	}
	recs, _ := filepath.Glob(filepath.Join(mem, "records", "decisions", "*.json"))
	for _, p := range recs {
		id := strings.TrimSuffix(filepath.Base(p), ".json")
		data, err := os.ReadFile(p)
		must(t, err)
		var rec struct {
			Status string `json:"record_status"`
		}
		must(t, json.Unmarshal(data, &rec))
		want := map[string]string{"reference": "active", "archive": "archived"}[where[id]]
		if rec.Status != want {
			t.Errorf("record %s is %q, its entry is in %q", id, rec.Status, where[id])
		}
		delete(where, id)
	}
	for id := range where {
		t.Errorf("id %s names no record", id)
	}
}
