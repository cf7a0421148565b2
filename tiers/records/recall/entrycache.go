package recall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/tiers"
)

// entryCacheFile, under the state directory, holds what retrieval needs
// of each reference file, so a prompt does not parse the whole reference
// tier with goldmark: over a thousand entries that was the largest part
// of the hook's time.
const entryCacheFile = "recall-entries.json"

// entryCacheVersion changes whenever what is cached or how it is
// extracted changes; a cache of another version is rebuilt.
const entryCacheVersion = 1

type entryCache struct {
	Version int                   `json:"version"`
	Files   map[string]cachedFile `json:"files"` // by absolute path
}

// cachedFile is the retrieval data of one markdown file, valid while the
// file's size, mtime and inode are those of key.
type cachedFile struct {
	Key     fileKey     `json:"key"`
	Entries []entryData `json:"entries"`
}

type fileKey struct {
	Size    int64  `json:"size"`
	ModNano int64  `json:"mtime_ns"`
	Inode   uint64 `json:"inode"`
}

// cachedMarkdownFiles are the entries of each *.md file in dir, read from
// the cache file where a file's key is unchanged and parsed otherwise. The
// cache is rewritten only when something changed; any problem with it
// (corrupt, unreadable, read-only home) just means parsing, never an error.
func cachedMarkdownFiles(dir, cacheFile string) []fileEntries {
	old := loadEntryCache(cacheFile)
	next := entryCache{Version: entryCacheVersion, Files: map[string]cachedFile{}}
	changed := false
	var out []fileEntries
	for _, f := range markdownFiles(dir) {
		// The key is taken before the parse: a file that changes during
		// the parse gets a new key and is parsed again next time.
		key, err := keyOf(f)
		if err != nil {
			continue
		}
		c, ok := old.Files[f]
		if !ok || c.Key != key {
			entries, err := parseMarkdown(f)
			if err != nil {
				continue
			}
			c, changed = cachedFile{Key: key, Entries: entries}, true
		}
		next.Files[f] = c
		out = append(out, fileEntries{path: f, entries: c.Entries})
	}
	if changed || len(next.Files) != len(old.Files) {
		saveEntryCache(cacheFile, next)
	}
	return out
}

func keyOf(path string) (fileKey, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileKey{}, err
	}
	k := fileKey{Size: fi.Size(), ModNano: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		k.Inode = uint64(st.Ino)
	}
	return k, nil
}

func loadEntryCache(path string) entryCache {
	var c entryCache
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &c) != nil || c.Version != entryCacheVersion {
		return entryCache{}
	}
	return c
}

func saveEntryCache(path string, c entryCache) {
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o755) == nil {
		_ = atomicfile.WriteFile(path, data, 0o644)
	}
}

// entryData is what retrieval uses of a markdown entry.
type entryData struct {
	Category string    `json:"category"`
	Title    string    `json:"title"`
	Line     int       `json:"line"`
	Tags     []string  `json:"tags,omitempty"`
	Status   string    `json:"status,omitempty"`
	Date     time.Time `json:"date,omitzero"`
}

// parseMarkdown extracts the entries of one markdown file that have a
// title.
func parseMarkdown(path string) ([]entryData, error) {
	entries, err := tiers.ParseFile(path)
	if err != nil {
		return nil, err
	}
	var out []entryData
	for _, e := range entries {
		if e.Title != "" {
			out = append(out, entryData{Category: entryCategory(e.Kind), Title: e.Title, Line: e.Line,
				Tags: entryTags(e), Status: e.Status(), Date: e.Date})
		}
	}
	return out, nil
}
