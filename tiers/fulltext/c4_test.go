package fulltext_test

import (
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers/fulltext"
)

// The package's own tests read and create c4.db with package sync (see
// helpers_test.go), which they cannot import themselves.
func init() { fulltext.UseC4(c4sync.OpenConversations, c4sync.Create) }
