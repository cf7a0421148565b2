package scheduler

import (
	"context"
	"testing"
	"time"

	c4sync "github.com/zylos/zylos-memory/sync"
)

// BenchmarkDispatchUserTask is one due slot of a user task: read the tasks,
// claim the slot, queue the prompt into C4, record the outcome.
func BenchmarkDispatchUserTask(b *testing.B) {
	h := newHome(b)
	h.add(b, &Task{Name: "t", Schedule: "@every 1s", Prompt: "p"})
	b.ResetTimer()
	for range b.N {
		h.now = h.now.Add(time.Second)
		h.tick(b)
	}
}

// BenchmarkDispatchSyncTrigger is one slot of memory-sync-periodic with
// unsummarized conversations: count them in C4, look for a pending request,
// queue one. Each iteration marks the last request delivered so the next
// one queues again.
func BenchmarkDispatchSyncTrigger(b *testing.B) {
	h := newHome(b)
	h.add(b, &Task{Name: SyncTask, Kind: KindBuiltin, Schedule: "@every 1s", Priority: 1})
	db, err := c4sync.OpenWrite(h.l.C4DB())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for range 1000 {
		db.Enqueue(c4sync.Message{Channel: "telegram", Content: "hello", Priority: 3})
	}
	raw := rawC4(b, h)
	defer raw.Close()
	b.ResetTimer()
	for range b.N {
		h.now = h.now.Add(time.Second)
		h.tick(b)
		b.StopTimer()
		raw.Exec(`UPDATE conversations SET status = 'delivered' WHERE channel = 'system'`)
		b.StartTimer()
	}
}

// BenchmarkStartToFirstTick is the daemon's own start-up: open the state
// DB, take the lock, recover, read the tasks and plan the first sleep. (The
// whole-process figure, binary start-up included, is measured by
// integration's BenchmarkSchedulerStartToFirstTick.)
func BenchmarkStartToFirstTick(b *testing.B) {
	h := newHome(b)
	if _, err := RegisterBuiltins(h.l, h.now); err != nil {
		b.Fatal(err)
	}
	h.store.Close()
	b.ResetTimer()
	for range b.N {
		lock, err := AcquireLock(h.l)
		if err != nil {
			b.Fatal(err)
		}
		s, err := Open(h.l)
		if err != nil {
			b.Fatal(err)
		}
		d, err := NewDaemon(h.l, s, func() time.Time { return h.now }, h.d.Log, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		ticked := make(chan time.Time, 1)
		d.Ticked = ticked
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- d.Run(ctx) }()
		<-ticked
		b.StopTimer()
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		s.Close()
		lock.Release()
		b.StartTimer()
	}
}
