package scheduler

import (
	"errors"
	"os"
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
