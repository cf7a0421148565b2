package hookstate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDirIsSafe(t *testing.T) {
	for id, want := range map[string]string{
		"abc-123_X":              "abc-123_X",
		"":                       noSession,
		"../../etc":              "______etc",
		"a/b":                    "a_b",
		"é":                      "_",
		strings.Repeat("x", 300): strings.Repeat("x", maxIDLen),
	} {
		if got := filepath.Base(Dir("/s", id)); got != want {
			t.Errorf("Dir(%q) = %q, want %q", id, got, want)
		}
		if filepath.Dir(Dir("/s", id)) != "/s/sessions" {
			t.Errorf("Dir(%q) escapes the sessions dir", id)
		}
	}
}

func TestIntRoundTripAndPrune(t *testing.T) {
	state := t.TempDir()
	old, fresh := Dir(state, "old"), Dir(state, "fresh")
	if err := WriteInt(old, "n", 42); err != nil {
		t.Fatal(err)
	}
	if err := WriteInt(fresh, "n", 7); err != nil {
		t.Fatal(err)
	}
	if n, ok := ReadInt(fresh, "n"); !ok || n != 7 {
		t.Fatalf("ReadInt = %d, %v", n, ok)
	}
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o700 {
		t.Errorf("state dir mode %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Join(fresh, "n")); st.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v", st.Mode().Perm())
	}
	past := time.Now().Add(-MaxAge - time.Hour)
	os.Chtimes(old, past, past)
	Prune(state, time.Now())
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("old session state kept")
	}
	if _, ok := ReadInt(fresh, "n"); !ok {
		t.Error("fresh session state pruned")
	}
	if err := Remove(fresh, "missing"); err != nil {
		t.Errorf("Remove of a missing file: %v", err)
	}
}
