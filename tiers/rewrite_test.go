package tiers

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
)

// rewriteCase is a Rewrite of "a\nb\nc\n" that changes b, with an edit
// landing just before the swap.
type rewriteCase struct {
	edit        func(t *testing.T, path string)
	want        string // the file after
	wantErr     error
	wantErrText string // or an error saying this
}

const (
	rewriteSrc  = "a\nb\nc\n"
	rewriteNext = "a\nB\nc\n"
)

// inPlaceEdit starts a process that truncates the file and writes text
// into it, as Node's writeFileSync does, and returns once it is done or
// waits on the lease Rewrite holds; wait waits for it to finish.
func inPlaceEdit(text string) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		ed := exec.Command("sh", "-c", `printf %s "$2" >"$1"`, "sh", path, text)
		if err := ed.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- ed.Wait() }()
		editors = append(editors, done)
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
			if locks, _ := os.ReadFile("/proc/locks"); strings.Contains(string(locks), "BREAKING") || len(done) > 0 {
				return
			}
		}
		t.Fatal("the editor neither finished nor waited on a lease")
	}
}

// editors are the in-place editors started by the current test.
var editors []chan error

func renameEdit(text string) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		if err := atomicfile.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var rewriteCases = map[string]rewriteCase{
	"appended in place":     {edit: inPlaceEdit(rewriteSrc + "d\n"), want: rewriteNext + "d\n"},
	"appended by a rename":  {edit: renameEdit(rewriteSrc + "d\n"), want: rewriteNext + "d\n"},
	"edited in place":       {edit: inPlaceEdit("A\nb\nc\n"), want: "A\nb\nc\n", wantErr: ErrChangedSinceRead},
	"edited by a rename":    {edit: renameEdit("A\nb\nc\n"), want: "A\nb\nc\n", wantErr: ErrChangedSinceRead},
	"truncated in place":    {edit: inPlaceEdit(""), want: "", wantErr: ErrChangedSinceRead},
	"same bytes, new inode": {edit: renameEdit(rewriteSrc), want: rewriteNext},
}

// runRewriteCase rewrites with exchange wrapped so that the edit lands
// once, just before the first swap.
func runRewriteCase(t *testing.T, c rewriteCase, swap func(a, b string) error) Layout {
	t.Helper()
	l := Layout{ZylosDir: t.TempDir()}
	path := filepath.Join(l.MemoryDir(), "reference", "decisions.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(rewriteSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	edited := false
	exchange = func(a, b string) error {
		if !edited {
			edited = true
			c.edit(t, b)
		}
		return swap(a, b)
	}
	defer func() { exchange = atomicfile.Exchange }()
	editors = nil
	_, err := l.Rewrite(path, []byte(rewriteSrc), []byte(rewriteNext), false, time.Now())
	for _, done := range editors {
		if werr := <-done; werr != nil {
			t.Fatalf("editor: %v", werr)
		}
	}
	if !errors.Is(err, c.wantErr) && (c.wantErrText == "" || err == nil || !strings.Contains(err.Error(), c.wantErrText)) {
		t.Fatalf("err = %v, want %v", err, c.wantErr)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != c.want {
		t.Errorf("file = %q, want %q", got, c.want)
	}
	temps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	if len(temps) > 0 {
		t.Errorf("temp files left: %v", temps)
	}
	return l
}

// An edit landing between the read and the swap is never overwritten: an
// append is carried into the rewrite, anything else is left as edited
// and refused with ErrChangedSinceRead.
func TestRewriteEditBeforeSwap(t *testing.T) {
	for name, c := range rewriteCases {
		t.Run(name, func(t *testing.T) { runRewriteCase(t, c, atomicfile.Exchange) })
	}
}

// Where the filesystem cannot exchange, the file is checked just before
// the rename, with the same outcome, and the old file is kept in backups;
// an edit in place that waited on the lease until the rename lands there,
// and the error says so (appended lines are carried over).
func TestRewriteWithoutExchange(t *testing.T) {
	noExchange := func(a, b string) error { return fmt.Errorf("exchange: %w", atomicfile.ErrNoExchange) }
	for name, c := range rewriteCases {
		t.Run(name, func(t *testing.T) {
			kept := rewriteSrc
			if strings.Contains(name, "in place") && c.wantErr != nil {
				kept = c.want
				c.want, c.wantErr, c.wantErrText = rewriteNext, nil, "that version is kept in memory/.state/backups/"
			}
			l := runRewriteCase(t, c, noExchange)
			if c.wantErr != nil {
				return
			}
			backups, _ := filepath.Glob(filepath.Join(l.StateDir(), "backups", "memory", "reference", "decisions.md.*"))
			if len(backups) == 0 {
				t.Fatalf("no backup of the old file")
			}
			data, _ := os.ReadFile(backups[len(backups)-1])
			if !strings.HasPrefix(string(data), kept) {
				t.Errorf("backup = %q, want %q", data, kept)
			}
		})
	}
}
