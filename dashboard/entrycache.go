package dashboard

import (
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/entries"
)

// entryCache keeps the parsed entries of the tier files the pages read,
// keyed by each file's identity (inode, size, modification time): a
// reference file of a thousand entries is parsed once per change, not
// once per page view.
type entryCache struct {
	mu    sync.Mutex
	files map[string]cachedEntries
}

type cachedEntries struct {
	ino   uint64
	size  int64
	mtime time.Time
	ents  []entries.Entry
}

// maxCachedFiles bounds the cache; past it, it starts again empty.
const maxCachedFiles = 64

// parse is tiers.ParseFile through the cache. The entries returned are
// shared: callers must not change them.
func (c *entryCache) parse(path string) ([]entries.Entry, error) {
	st, err := os.Stat(path)
	if err != nil {
		return tiers.ParseFile(path) // its error names the problem
	}
	var ino uint64
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		ino = sys.Ino
	}
	c.mu.Lock()
	hit, ok := c.files[path]
	c.mu.Unlock()
	if ok && hit.ino == ino && hit.size == st.Size() && hit.mtime.Equal(st.ModTime()) {
		return hit.ents, nil
	}
	ents, err := tiers.ParseFile(path)
	if err != nil {
		return nil, err
	}
	// A file written within the clock's resolution may change again with
	// the same size and time: only a file older than that is kept.
	if time.Since(st.ModTime()) > 2*time.Second {
		c.mu.Lock()
		if c.files == nil || len(c.files) >= maxCachedFiles {
			c.files = map[string]cachedEntries{}
		}
		c.files[path] = cachedEntries{ino: ino, size: st.Size(), mtime: st.ModTime(), ents: ents}
		c.mu.Unlock()
	}
	return ents, nil
}
