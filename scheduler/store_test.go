package scheduler

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestClaimOncePerSlot(t *testing.T) {
	h := newHome(t)
	h.add(t, &Task{Name: "t", Schedule: "@every 1m", Prompt: "p"})
	slot := h.now.Add(time.Minute)
	for i, want := range []bool{true, false} {
		_, claimed, err := h.store.claim("t", slot, slot.Add(time.Minute), h.now, StatusRunning, "")
		if err != nil || claimed != want {
			t.Fatalf("claim %d = %v, %v; want %v", i, claimed, err, want)
		}
	}
	// A fresh connection (a restarted daemon) sees the claim too.
	s2, err := Open(h.l)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, claimed, err := s2.claim("t", slot, slot, h.now, StatusRunning, ""); err != nil || claimed {
		t.Fatalf("claim after reopen = %v, %v; want false", claimed, err)
	}
}

func TestCorruptStateDBIsKept(t *testing.T) {
	h := newHome(t)
	h.store.Close()
	garbage := []byte("this is not a database, but it is someone's file\n")
	if err := os.WriteFile(DBPath(h.l), garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(DBPath(h.l) + "-wal")
	os.Remove(DBPath(h.l) + "-shm")
	if _, err := Open(h.l); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open = %v, want ErrCorrupt", err)
	}
	got, _ := os.ReadFile(DBPath(h.l))
	if string(got) != string(garbage) {
		t.Fatal("the corrupt state DB was modified")
	}
}

func TestRegisterBuiltinsKeepsUserChanges(t *testing.T) {
	h := newHome(t)
	added, err := RegisterBuiltins(h.l, h.now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{SyncTask, RotationTask, ConsolidationTask}
	if !slices.Equal(added, want) {
		t.Fatalf("added %v, want %v", added, want)
	}
	if err := h.store.SetEnabled(RotationTask, false, h.now, time.UTC); err != nil {
		t.Fatal(err)
	}
	added, err = RegisterBuiltins(h.l, h.now)
	if err != nil || len(added) != 0 {
		t.Fatalf("second RegisterBuiltins added %v, %v", added, err)
	}
	rot, err := h.store.Get(RotationTask)
	if err != nil || rot.Enabled {
		t.Fatalf("paused rotation came back enabled: %+v, %v", rot, err)
	}
	if err := h.store.Remove(SyncTask); err != nil {
		t.Fatal(err)
	}
	if added, _ := RegisterBuiltins(h.l, h.now); !slices.Equal(added, []string{SyncTask}) {
		t.Fatalf("re-register after remove added %v", added)
	}
}

func TestAddUserErrors(t *testing.T) {
	h := newHome(t)
	tests := []struct {
		name string
		opts AddOptions
		want string
	}{
		{"no prompt", AddOptions{Cron: "@daily", Priority: 3}, "a prompt is required"},
		{"no schedule", AddOptions{Prompt: "p", Priority: 3}, "exactly one of"},
		{"two schedules", AddOptions{Prompt: "p", Cron: "@daily", Every: "1h", Priority: 3}, "exactly one of"},
		{"bad cron", AddOptions{Prompt: "p", Cron: "99 * * * *", Priority: 3}, "invalid schedule"},
		{"bad every", AddOptions{Prompt: "p", Every: "often", Priority: 3}, "invalid duration"},
		{"bad priority", AddOptions{Prompt: "p", Every: "1h", Priority: 4}, "priority 4"},
		{"bad timezone", AddOptions{Prompt: "p", Every: "1h", Priority: 3, Timezone: "Mars/Olympus"}, "timezone"},
		{"at in the past", AddOptions{Prompt: "p", At: "2020-01-01T00:00:00Z", Priority: 3}, "in the past"},
		{"bad miss window", AddOptions{Prompt: "p", Every: "1h", Priority: 3, MissWindow: "-1m"}, "--miss-window"},
		{"name with space", AddOptions{Prompt: "p", Every: "1h", Priority: 3, Name: "a b"}, "without spaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := AddUser(h.store, tt.opts, h.now, time.UTC)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("AddUser = %v, want error containing %q", err, tt.want)
			}
		})
	}
	if _, err := AddUser(h.store, AddOptions{Prompt: "p", Every: "1h", Priority: 3, Name: "x"}, h.now, time.UTC); err != nil {
		t.Fatal(err)
	}
	if _, err := AddUser(h.store, AddOptions{Prompt: "p", Every: "1h", Priority: 3, Name: "x"}, h.now, time.UTC); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate name: %v, want ErrExists", err)
	}
}

// OpenRead reads what is there and writes nothing: no state dir, no DB,
// no -wal or -shm file, not a byte of a DB it cannot read.
func TestOpenReadWritesNothing(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(h *home) // runs on a home with tasks a and b
		open    bool          // a writer keeps the DB open (the daemon runs)
		want    []string      // task names
		wantErr error
	}{
		{name: "no state dir", setup: func(h *home) { os.RemoveAll(h.l.StateDir()) }},
		{name: "no tables", setup: func(h *home) { os.WriteFile(DBPath(h.l), nil, 0o600) }},
		{name: "at rest", want: []string{"a", "b"}},
		{name: "open by a writer", open: true, want: []string{"a", "b"}},
		{name: "corrupt", setup: func(h *home) { os.WriteFile(DBPath(h.l), []byte("not a database\n"), 0o600) },
			wantErr: ErrCorrupt},
		{name: "runs table missing", setup: func(h *home) { dropTable(h, "runs") }, wantErr: ErrDamaged},
		{name: "tasks table missing", setup: func(h *home) { dropTable(h, "tasks") }, wantErr: ErrDamaged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			h.add(t, &Task{Name: "a", Schedule: "@every 1m", Prompt: "p"})
			h.add(t, &Task{Name: "b", Schedule: "@daily", Prompt: "q"})
			if !tt.open {
				h.store.Close()
			}
			if tt.setup != nil {
				tt.setup(h)
			}
			before := stateFiles(t, h.l.StateDir())
			s, err := OpenRead(h.l)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("OpenRead = %v, want %v", err, tt.wantErr)
			}
			if err == nil {
				tasks, err := s.List()
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, task := range tasks {
					names = append(names, task.Name)
				}
				if !slices.Equal(names, tt.want) {
					t.Errorf("tasks %v, want %v", names, tt.want)
				}
				if _, err := s.History("", 10); err != nil {
					t.Error(err)
				}
				if during := stateFiles(t, h.l.StateDir()); during != before {
					t.Errorf("state dir while open:\n%s\nbefore:\n%s", during, before)
				}
				if err := s.Remove("a"); err == nil {
					t.Error("a read-only store removed a task")
				}
				s.Close()
			}
			if after := stateFiles(t, h.l.StateDir()); after != before {
				t.Errorf("state dir after:\n%s\nbefore:\n%s", after, before)
			}
		})
	}
}

// stateFiles lists dir's files with their contents ("" when dir is missing).
// A -shm file is only named: it is the shared memory readers take their
// read locks in while a writer has the DB open, not data.
func stateFiles(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "-shm") {
			fmt.Fprintln(&b, e.Name())
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d %x\n", e.Name(), len(data), sha256.Sum256(data))
	}
	return b.String()
}

// dropTable removes a table from the home's state DB, as damage would. A
// failure shows as OpenRead finding the table still there.
func dropTable(h *home, table string) {
	db, err := sql.Open("sqlite3", DBPath(h.l))
	if err != nil {
		return
	}
	defer db.Close()
	db.Exec(`DROP TABLE ` + table)
}
