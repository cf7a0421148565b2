package c4sync

import (
	"errors"
	"fmt"
)

// Message is an inbound message to queue into C4.
type Message struct {
	Channel     string
	Endpoint    string
	Content     string
	Priority    int
	RequireIdle bool
}

// ErrMessage reports a message that cannot be queued.
var ErrMessage = errors.New("invalid message")

func (m Message) validate() error {
	switch {
	case m.Channel == "":
		return fmt.Errorf("%w: channel is empty", ErrMessage)
	case m.Content == "":
		return fmt.Errorf("%w: content is empty", ErrMessage)
	case m.Priority < 1 || m.Priority > 3:
		return fmt.Errorf("%w: priority %d is not 1, 2 or 3", ErrMessage, m.Priority)
	}
	return nil
}

// Enqueue inserts m as a pending inbound conversation and returns its id.
func (db *DB) Enqueue(m Message) (id int64, err error) {
	if err := m.validate(); err != nil {
		return 0, err
	}
	return db.insertMessage(db.sql, m)
}

// insertMessage inserts a validated m through exec (the database or a
// transaction).
func (db *DB) insertMessage(exec execer, m Message) (id int64, err error) {
	var endpoint any
	if m.Endpoint != "" {
		endpoint = m.Endpoint
	}
	idle := 0
	if m.RequireIdle {
		idle = 1
	}
	res, err := exec.Exec(`INSERT INTO conversations (timestamp, direction, channel, endpoint_id, content, status, priority, require_idle)
 VALUES (?, 'in', ?, ?, ?, 'pending', ?, ?)`, sqliteTime(db.now()), m.Channel, endpoint, m.Content, m.Priority, idle)
	if err != nil {
		return 0, db.wrap("queue message", err)
	}
	id, err = res.LastInsertId()
	if err != nil {
		return 0, db.wrap("queue message", err)
	}
	return id, nil
}

// HasPending reports whether an inbound message with exactly this content
// is still pending, so a periodic request is not queued twice.
func (db *DB) HasPending(content string) (bool, error) {
	var one int
	err := db.sql.QueryRow(`SELECT COUNT(*) FROM (SELECT 1 FROM conversations WHERE status = 'pending' AND direction = 'in' AND content = ? LIMIT 1)`, content).Scan(&one)
	if err != nil {
		return false, db.wrap("find pending message", err)
	}
	return one > 0, nil
}

// QueuedLine is the answer of `c4 receive` for a queued message (no newline).
func QueuedLine(id int64, m Message) string {
	s := fmt.Sprintf("[C4] Message queued (id=%d, priority=%d", id, m.Priority)
	if m.RequireIdle {
		s += ", require_idle"
	}
	return s + ")"
}

// Directions of a conversation: to the agent, and from it.
const (
	DirectionIn  = "in"
	DirectionOut = "out"
)

// Record logs a conversation that has already reached its reader (status
// delivered), as the comm-bridge logs what it relays: a prompt typed into
// the agent's terminal (in) or the agent's reply (out). Nothing will
// deliver it again.
func (db *DB) Record(direction, channel, endpoint, content string) (id int64, err error) {
	if direction != DirectionIn && direction != DirectionOut {
		return 0, fmt.Errorf("%w: direction %q is not in or out", ErrMessage, direction)
	}
	if err := (Message{Channel: channel, Content: content, Priority: 3}).validate(); err != nil {
		return 0, err
	}
	var ep any
	if endpoint != "" {
		ep = endpoint
	}
	res, err := db.sql.Exec(`INSERT INTO conversations (timestamp, direction, channel, endpoint_id, content, status)
 VALUES (?, ?, ?, ?, ?, 'delivered')`, sqliteTime(db.now()), direction, channel, ep, content)
	if err != nil {
		return 0, db.wrap("record conversation", err)
	}
	if id, err = res.LastInsertId(); err != nil {
		return 0, db.wrap("record conversation", err)
	}
	return id, nil
}
