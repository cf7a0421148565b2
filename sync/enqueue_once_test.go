package c4sync

import (
	"testing"
)

// A key queues one message: a second call, even after the first message
// left the pending state, returns the first id and queues nothing.
func TestEnqueueOnceQueuesOncePerKey(t *testing.T) {
	db := newDB(t)
	if _, found, err := db.QueuedFor("k"); err != nil || found {
		t.Fatalf("QueuedFor before any key: %v %v", found, err)
	}
	var tables int
	db.sql.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'zylos_memory_queue_keys'`).Scan(&tables)
	if tables != 0 {
		t.Fatal("QueuedFor created the keys table")
	}
	m := Message{Channel: "system", Content: "same text", Priority: 2}
	first, queued, err := db.EnqueueOnce(m, "k")
	if err != nil || !queued {
		t.Fatalf("first: %d %v %v", first, queued, err)
	}
	if _, err := db.sql.Exec(`UPDATE conversations SET status = 'delivered'`); err != nil {
		t.Fatal(err)
	}
	again, queued, err := db.EnqueueOnce(m, "k")
	if err != nil || queued || again != first {
		t.Fatalf("same key: %d %v %v, want %d not queued", again, queued, err, first)
	}
	other, queued, err := db.EnqueueOnce(m, "k2")
	if err != nil || !queued || other == first {
		t.Fatalf("other key with the same text: %d %v %v, want a new message", other, queued, err)
	}
	if id, found, err := db.QueuedFor("k2"); err != nil || !found || id != other {
		t.Fatalf("QueuedFor(k2) = %d %v %v", id, found, err)
	}
	var n int
	db.sql.QueryRow(`SELECT count(*) FROM conversations WHERE content = 'same text'`).Scan(&n)
	if n != 2 {
		t.Fatalf("%d messages, want 2", n)
	}
}
