package fulltext

import (
	"context"
	"time"
)

// Conversation is one row of a conversation log as it is stored, which
// the index keeps its own copy of.
type Conversation struct {
	ID                            int64
	Timestamp, Direction, Channel string
	Content                       []byte // as stored: not always valid UTF-8
}

// Conversations is a conversation log the index covers beside the
// memory's files: C4's comm-bridge database, which package sync reads.
// The index declares what it reads and sync implements it, so that the
// memory's tiers never import the C4 pipeline.
type Conversations interface {
	// LastID is the highest conversation id, 0 when there is none.
	LastID(ctx context.Context) (int64, error)
	// ConversationsAfter calls fn with each conversation whose id is
	// above after, in id order, and returns the id of the last one fn
	// took (after when none): a caller stopped by an error resumes there.
	ConversationsAfter(ctx context.Context, after int64, fn func(Conversation) error) (last int64, err error)
	Close() error
}

// OpenConversations opens the log at path read-only; its statements give
// up after busy when a writer holds it, as the index would rather read
// the rows on its next update than wait.
type OpenConversations func(path string, busy time.Duration) (Conversations, error)
