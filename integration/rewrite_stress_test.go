package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// stressSecondsEnv sets how long TestRewriteStressLosesNothing runs (a
// few seconds unless set), for longer runs by hand.
const stressSecondsEnv = "ZYLOS_MEMORY_TEST_STRESS_SECONDS"

// carefulEditor adds hand entries to a reference file, as an agent's
// editor would, and never saves over a file that changed since it read
// it. "rename" saves a new file and swaps it in with RENAME_EXCHANGE,
// swapping back when what it displaced is not what it read; "inplace"
// truncates and writes the file's own inode, after checking through the
// descriptor it writes with that the file is still what it read. Each
// entry goes at the end or before a random entry. The editors take turns
// (a lock of their own): their races with each other are not the
// product's. It prints the titles it saved, one a line.
const carefulEditor = `
import ctypes, fcntl, os, random, sys, time
path, mode, stop, lock = sys.argv[1:5]
libc = ctypes.CDLL(None, use_errno=True)
rnd = random.Random(mode)

def exchange(a, b):
    if libc.renameat2(-100, a.encode(), -100, b.encode(), 2) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))

def read(fd):
    os.lseek(fd, 0, 0)
    out = b""
    while True:
        b = os.read(fd, 1 << 20)
        if not b:
            return out
        out += b

def insert(text, entry):
    starts = [i + 1 for i in range(len(text)) if text.startswith(b"\n### ", i)]
    if starts and rnd.random() < 0.5:
        i = rnd.choice(starts)
        return text[:i] + entry + b"\n" + text[i:]
    return text.rstrip(b"\n") + b"\n\n" + entry

def save_rename(entry):
    fd = os.open(path, os.O_RDONLY)
    try:
        seen, ino = read(fd), os.fstat(fd).st_ino
        time.sleep(rnd.uniform(0, 0.01))
        tmp = os.path.join(os.path.dirname(path), ".edit-%d" % os.getpid())
        with open(tmp, "wb") as f:
            f.write(insert(seen, entry))
            f.flush()
            os.fsync(f.fileno())
        ours = os.lstat(tmp).st_ino
        exchange(tmp, path)
        if os.lstat(tmp).st_ino == ino and read(fd) == seen:
            os.unlink(tmp)
            return True
        exchange(tmp, path)
        if os.lstat(tmp).st_ino != ours:
            print("CONFLICT " + entry.decode().splitlines()[0], file=sys.stderr)
            os.rename(tmp, tmp + ".conflict")
            return False
        os.unlink(tmp)
        return False
    finally:
        os.close(fd)

def save_inplace(entry):
    with open(path, "rb") as f:
        seen = f.read()
    time.sleep(rnd.uniform(0, 0.01))
    fd = os.open(path, os.O_RDWR)
    try:
        if read(fd) != seen or os.fstat(fd).st_ino != os.stat(path).st_ino:
            return False
        os.ftruncate(fd, 0)
        os.pwrite(fd, insert(seen, entry), 0)
        os.fsync(fd)
        return True
    finally:
        os.close(fd)

n = 0
while not os.path.exists(stop):
    n += 1
    title = "Hand %s %d" % (mode, n)
    entry = ("### [2026-03-02] %s\n- **Decision:** typed\n- **Context:** hand %s %d\n- **Status:** active\n" % (title, mode, n)).encode()
    while not os.path.exists(stop):
        with open(lock, "w") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            ok = (save_rename if mode == "rename" else save_inplace)(entry)
        if ok:
            print(title, flush=True)
            break
        time.sleep(0.002)
    time.sleep(rnd.uniform(0.002, 0.02))
`

// A stress of careful editors of both kinds against two records write
// loops and an ingest loop, all on decisions.md: every hand entry the
// editors saved and every record a write reported written is in the
// file and in the records at the end.
func TestRewriteStressLosesNothing(t *testing.T) {
	seconds := 4
	if s, err := strconv.Atoi(os.Getenv(stressSecondsEnv)); err == nil && s > 0 {
		seconds = s
	}
	h := newRaceHome(t)
	work := t.TempDir()
	stop := filepath.Join(work, "stop")
	script := filepath.Join(work, "editor.py")
	must(t, os.WriteFile(script, []byte(carefulEditor), 0o644))
	env := testutil.Run{ZylosDir: h.zylos}.Environ()
	bin := testutil.Binary(t)
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = h.zylos, env
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	stopped := func() bool { _, err := os.Stat(stop); return err == nil }

	var editors []*exec.Cmd
	var saved [2]bytes.Buffer
	var editErr [2]bytes.Buffer
	for i, mode := range []string{"rename", "inplace"} {
		ed := exec.Command("python3", script, h.decisions, mode, stop, filepath.Join(work, "editors.lock"))
		ed.Stdout, ed.Stderr = &saved[i], &editErr[i]
		must(t, ed.Start())
		editors = append(editors, ed)
	}

	// written holds, for each record a write reported written, the
	// contexts it may show: the last one written, and those of later
	// writes that failed (a failed write may have shown its record).
	var mu sync.Mutex
	written := map[string][]string{}
	failures := map[string]int{}
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stopped(); i++ {
				slug := fmt.Sprintf("writer-%d-%d", w, i)
				action, ctx := "create", fmt.Sprintf("writer %d %d v0", w, i)
				if i%2 == 1 {
					slug = fmt.Sprintf("writer-%d-%d", w, i-1)
					action, ctx = "update", fmt.Sprintf("writer %d %d v1", w, i-1)
				}
				in := filepath.Join(h.stg, fmt.Sprintf("w%d.json", w))
				doc := fmt.Sprintf(`{"title":"Writer %d %d","tags":["t"],"content":{"status":"accepted","context":%q,"decision":"d","rationale":["r"]}}`, w, i-i%2, ctx)
				if action == "update" {
					data, err := os.ReadFile(filepath.Join(h.root, "decisions", slug+".json"))
					if err != nil {
						continue // its create failed
					}
					var d map[string]any
					must(t, json.Unmarshal(data, &d))
					d["content"].(map[string]any)["context"] = ctx
					withChange(d)
					out, _ := json.Marshal(d)
					doc = string(out)
				}
				must(t, os.WriteFile(in, []byte(doc), 0o644))
				args := []string{"records", "write", "--action", action, "--target", "memory/records/decisions/" + slug + ".json", "--input", in}
				if action == "create" {
					args = append(args, "--category", "decision")
				}
				code, out := run(args...)
				mu.Lock()
				switch {
				case code == 0:
					written[slug] = []string{ctx}
				case written[slug] != nil:
					written[slug] = append(written[slug], ctx)
					failures[lastLine(out)]++
				default:
					failures[lastLine(out)]++
				}
				mu.Unlock()
			}
		}()
	}
	ingests := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stopped() {
			// A refusal (a file kept changing, the lock busy past its
			// wait, an entry left alone) loses nothing: it is counted.
			code, out := run("records", "ingest")
			if code != 0 && !strings.Contains(out, "run again") && !strings.Contains(out, "left alone") && !strings.Contains(out, "LOCK_ERROR") {
				t.Errorf("ingest: exit %d: %s", code, out)
			}
			ingests++
		}
	}()
	time.Sleep(time.Duration(seconds) * time.Second)
	// On a busy machine a write can take seconds: go on until a few
	// are in, within a bound.
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		mu.Lock()
		n := len(written)
		mu.Unlock()
		if n >= 4 {
			break
		}
	}
	must(t, os.WriteFile(stop, nil, 0o644))
	wg.Wait()
	for i, ed := range editors {
		if err := ed.Wait(); err != nil {
			t.Fatalf("editor: %v: %s", err, editErr[i].String())
		}
		if editErr[i].Len() > 0 {
			t.Errorf("editor: %s", editErr[i].String())
		}
	}
	if code, out := run("records", "ingest"); code != 0 {
		t.Errorf("final ingest: exit %d: %s", code, out)
	}

	data, err := os.ReadFile(h.decisions)
	must(t, err)
	text := string(data)
	titles := recordTitles(t, filepath.Join(h.root, "decisions"))
	hand, handLost := 0, 0
	for i := range saved {
		for _, title := range strings.Split(strings.TrimSpace(saved[i].String()), "\n") {
			if title == "" {
				continue
			}
			hand++
			if !strings.Contains(text, "] "+title+"\n") || titles[title] == nil {
				handLost++
				t.Errorf("hand entry %q lost (in file: %v, records: %v)", title, strings.Contains(text, "] "+title+"\n"), titles[title])
			}
		}
	}
	recLost := 0
	for slug, contexts := range written {
		rec := titles["Writer "+strings.Join(strings.Split(strings.TrimPrefix(slug, "writer-"), "-"), " ")]
		shown := entryContext(text, slug)
		if rec == nil || !contains(contexts, rec.context) || !contains(contexts, shown) {
			recLost++
			t.Errorf("record %s lost or old: record %v, entry context %q, want one of %q", slug, rec, shown, contexts)
		}
	}
	t.Logf("%d s: %d hand entries saved, %d lost; %d records written, %d lost; %d ingests; failed writes: %v",
		seconds, hand, handLost, len(written), recLost, ingests, failures)
	if hand == 0 || len(written) == 0 {
		t.Errorf("nothing happened: %d hand entries, %d records", hand, len(written))
	}
}

type recordSeen struct {
	id, context, status string
}

// recordTitles reads the decision records, by title.
func recordTitles(t *testing.T, dir string) map[string]*recordSeen {
	t.Helper()
	out := map[string]*recordSeen{}
	des, err := os.ReadDir(dir)
	must(t, err)
	for _, de := range des {
		if !strings.HasSuffix(de.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, de.Name()))
		must(t, err)
		var d struct {
			Title   string `json:"title"`
			Status  string `json:"record_status"`
			Content struct {
				Context string `json:"context"`
			} `json:"content"`
		}
		must(t, json.Unmarshal(data, &d))
		if d.Status != "" && d.Status != "active" {
			continue
		}
		out[d.Title] = &recordSeen{id: strings.TrimSuffix(de.Name(), ".json"), context: d.Content.Context, status: d.Status}
	}
	return out
}

// entryContext is the Context line of the entry with id in text.
func entryContext(text, id string) string {
	_, after, ok := strings.Cut(text, "<!-- id: "+id+" -->\n")
	if !ok {
		return ""
	}
	for _, line := range strings.Split(after, "\n") {
		if c, ok := strings.CutPrefix(line, "- **Context:** "); ok {
			return c
		}
		if strings.HasPrefix(line, "### ") {
			break
		}
	}
	return ""
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
