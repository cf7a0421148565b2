package scheduler

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	c4sync "github.com/zylos/zylos-memory/sync"
)

func TestUserTaskQueuesOncePerSlot(t *testing.T) {
	h := newHome(t)
	h.add(t, &Task{Name: "standup", Schedule: "@every 1m", Prompt: "write the standup", Priority: 2, RequireIdle: true})
	h.setAgent(t, "idle")
	h.now = h.now.Add(time.Minute)
	h.tick(t)
	h.tick(t) // same clock: the slot is taken
	h.now = h.now.Add(time.Minute)
	h.tick(t)
	want := []string{"2|1|[Scheduled Task: standup] write the standup", "2|1|[Scheduled Task: standup] write the standup"}
	if got := h.c4Rows(t); !slices.Equal(got, want) {
		t.Fatalf("C4 rows = %q, want %q", got, want)
	}
	if got := h.statuses(t, "standup"); !slices.Equal(got, []string{"10:31:00 ok", "10:32:00 ok"}) {
		t.Fatalf("history = %q", got)
	}
}

func TestMissedSlots(t *testing.T) {
	h := newHome(t)
	h.add(t, &Task{Name: "late", Schedule: "0 11 * * *", Prompt: "p"})
	h.add(t, &Task{Name: "in-window", Schedule: "0 11 * * *", Prompt: "q", MissWindow: time.Hour})
	h.add(t, &Task{Name: RotationTask, Kind: KindBuiltin, Schedule: "0 11 * * *", Priority: 2, MissWindow: AlwaysCatchUp})
	h.write(t, "sessions/current.md", "# Session Log: 2026-03-14\n\n- yesterday's work\n")
	h.now = mustTime(t, "2026-03-15T12:00:00Z") // the daemon was down at 11:00
	h.tick(t)
	if got := h.statuses(t, "late"); !slices.Equal(got, []string{"11:00:00 missed"}) {
		t.Errorf("late history = %q", got)
	}
	if got := h.statuses(t, "in-window"); !slices.Equal(got, []string{"11:00:00 ok"}) {
		t.Errorf("in-window history = %q", got)
	}
	if got := h.statuses(t, RotationTask); !slices.Equal(got, []string{"11:00:00 ok"}) {
		t.Errorf("rotation history = %q, want it caught up", got)
	}
	if _, err := os.Stat(filepath.Join(h.l.SessionsDir(), "2026-03-14.md")); err != nil {
		t.Errorf("rotation did not run: %v", err)
	}
	if got := h.c4Rows(t); len(got) != 1 || !strings.HasSuffix(got[0], "] q") {
		t.Errorf("C4 rows = %q, want only the in-window task", got)
	}
	late, _ := h.store.Get("late")
	if want := mustTime(t, "2026-03-16T11:00:00Z"); !late.NextRun.Equal(want) {
		t.Errorf("late next run = %v, want %v", late.NextRun, want)
	}
}

func TestBacklogCollapsesIntoOneRun(t *testing.T) {
	h := newHome(t)
	h.add(t, &Task{Name: "every", Schedule: "@every 1m", Prompt: "p", MissWindow: AlwaysCatchUp})
	h.now = h.now.Add(10 * time.Minute)
	h.tick(t)
	h.tick(t)
	if got := h.c4Rows(t); len(got) != 1 {
		t.Fatalf("after a 10-minute gap queued %d messages, want 1", len(got))
	}
}

func TestIdleWait(t *testing.T) {
	h := newHome(t)
	h.add(t, &Task{Name: "tidy", Schedule: "@every 1m", Prompt: "p", RequireIdle: true})
	h.setAgent(t, "busy")
	h.now = h.now.Add(time.Minute)
	h.tick(t)
	h.now = h.now.Add(time.Minute)
	h.tick(t) // a second slot while the first waits is skipped, not stacked
	if got := h.c4Rows(t); len(got) != 0 {
		t.Fatalf("queued while busy: %q", got)
	}
	h.setAgent(t, "idle")
	h.tick(t)
	if got := h.statuses(t, "tidy"); !slices.Equal(got, []string{"10:31:00 ok", "10:32:00 skipped"}) {
		t.Fatalf("history = %q", got)
	}
	if got := h.c4Rows(t); len(got) != 1 {
		t.Fatalf("C4 rows = %q, want 1", got)
	}
}

func TestAgentIdle(t *testing.T) {
	dir := t.TempDir()
	f := dir + "/status.json"
	tests := []struct {
		content  string
		idle     bool
		withNote bool
	}{
		{"", true, true}, // missing
		{`{"state":"idle"}`, true, false},
		{`{"state":"busy"}`, false, false},
		{`not json`, true, true},
	}
	for _, tt := range tests {
		os.Remove(f)
		if tt.content != "" {
			os.WriteFile(f, []byte(tt.content), 0o600)
		}
		idle, note := AgentIdle([]string{f})
		if idle != tt.idle || (note != "") != tt.withNote {
			t.Errorf("AgentIdle(%q) = %v, %q", tt.content, idle, note)
		}
	}
}

func TestSyncTrigger(t *testing.T) {
	h := newHome(t)
	if _, err := RegisterBuiltins(h.l, h.now); err != nil {
		t.Fatal(err)
	}
	h.now = mustTime(t, "2026-03-15T12:00:00Z")
	h.tick(t)
	if got := h.statuses(t, SyncTask); !slices.Equal(got, []string{"12:00:00 skipped"}) {
		t.Fatalf("history with nothing to sync = %q", got)
	}
	db, err := c4sync.OpenWrite(h.l.C4DB())
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := db.Enqueue(c4sync.Message{Channel: "telegram", Content: "hello", Priority: 3}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	for _, at := range []string{"2026-03-15T14:00:00Z", "2026-03-15T16:00:00Z"} {
		h.now = mustTime(t, at)
		h.tick(t)
	}
	want := "1|0|[Action Required] There are 3 unsummarized conversations (conversation id 1 ~ 3). " +
		"Please invoke Memory Sync skill to process them: /memory sync --begin 1 --end 3"
	if got := h.c4Rows(t); !slices.Equal(got, []string{want}) {
		t.Fatalf("C4 rows = %q, want one trigger", got)
	}
	if got := h.statuses(t, SyncTask); !slices.Equal(got, []string{"12:00:00 skipped", "14:00:00 ok", "16:00:00 skipped"}) {
		t.Fatalf("history = %q", got)
	}
}

func TestConsolidationWritesReport(t *testing.T) {
	h := newHome(t)
	if _, err := RegisterBuiltins(h.l, h.now); err != nil {
		t.Fatal(err)
	}
	h.write(t, "core.md", strings.Repeat("x", 4000)) // over the 3 KB budget
	run, err := h.d.Runner.Trigger(h.store, ConsolidationTask, h.now)
	if err != nil || run.Status != StatusOK {
		t.Fatalf("trigger = %+v, %v", run, err)
	}
	path := ReportPath(h.l, h.now)
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), "core.md is 4000 bytes") {
		t.Fatalf("report %s: %v\n%s", path, err, data)
	}
	rows := h.c4Rows(t)
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "2|1|") || !strings.Contains(rows[0], path) {
		t.Fatalf("C4 rows = %q, want a priority-2 review request naming %s", rows, path)
	}
}

// A daemon killed after claiming a slot but before finishing it leaves a
// running row; the next start retries it without queuing a duplicate.
func TestInterruptedRunIsRetriedOnce(t *testing.T) {
	h := newHome(t)
	h.add(t, &Task{Name: "a", Schedule: "@every 1h", Prompt: "queued before the crash"})
	h.add(t, &Task{Name: "b", Schedule: "@every 1h", Prompt: "not queued before the crash"})
	slot := h.now
	h.store.claim("a", slot, slot.Add(time.Hour), h.now, StatusRunning, "")
	h.store.claim("b", slot, slot.Add(time.Hour), h.now, StatusRunning, "")
	a, _ := h.store.Get("a")
	h.d.Runner.queue(slotKey("a", slot), UserContent(a), 3, false, false) // a's action got through
	ctx, cancel := context.WithCancel(context.Background())
	ticked := make(chan time.Time, 1)
	h.d.Ticked = ticked
	go func() { <-ticked; cancel() }()
	if err := h.d.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.c4Rows(t); len(got) != 2 {
		t.Fatalf("C4 rows = %q, want one per task", got)
	}
	for _, task := range []string{"a", "b"} {
		runs, _ := h.store.History(task, 10)
		if len(runs) != 1 || runs[0].Status == StatusRunning {
			t.Fatalf("%s history = %+v", task, runs)
		}
	}
}

// A stored task whose schedule no longer parses (its zone left the system's
// tz database) is paused with the reason, not retried on every wake-up.
func TestBrokenTaskIsDisabled(t *testing.T) {
	h := newHome(t)
	h.add(t, &Task{Name: "gone", Schedule: "@every 1m", Prompt: "p"})
	if _, err := h.store.db.Exec(`UPDATE tasks SET timezone = 'Atlantis/Capital' WHERE name = 'gone'`); err != nil {
		t.Fatal(err)
	}
	h.now = h.now.Add(time.Minute)
	h.tick(t)
	got, err := h.store.Get("gone")
	if err != nil || got.Enabled || got.LastStatus != StatusError || !strings.Contains(got.LastError, "Atlantis/Capital") {
		t.Fatalf("task = %+v, %v; want disabled with the timezone error", got, err)
	}
	if rows := h.c4Rows(t); len(rows) != 0 {
		t.Fatalf("broken task queued %q", rows)
	}
}
