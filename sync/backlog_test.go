package c4sync

import (
	"testing"
	"time"
)

func TestBacklogAtEachCheckpoint(t *testing.T) {
	db := newDB(t)
	addConversations(t, db, 30) // ids 1-30, one a minute from fixedNow
	at := func(min int) string { return sqliteTime(fixedNow.Add(time.Duration(min) * time.Minute)) }
	for _, cp := range []struct {
		ts       string
		from, to int64
	}{{at(9), 1, 8}, {at(19), 9, 20}, {at(29), 21, 25}} {
		if _, err := db.sql.Exec(`INSERT INTO checkpoints (timestamp, start_conversation_id, end_conversation_id) VALUES (?, ?, ?)`,
			cp.ts, cp.from, cp.to); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Backlog(3)
	if err != nil {
		t.Fatal(err)
	}
	// The initial checkpoint (end NULL) is the one before the window; at
	// minute 9 ten conversations had come (ids 1-10), and so on.
	want := []BacklogPoint{{at(9), 10, 2}, {at(19), 12, 0}, {at(29), 10, 5}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("point %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	all, err := db.Backlog(10)
	// The initial checkpoint, stamped by the real clock after every
	// conversation, summarized none of them.
	if err != nil || len(all) != 4 || all[0].Before != 30 || all[0].After != 30 || all[1] != want[0] {
		t.Errorf("with the initial checkpoint: %+v %v", all, err)
	}
}
