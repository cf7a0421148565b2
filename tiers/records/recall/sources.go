package recall

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zylos/zylos-memory/tiers"
)

// referenceCategory labels a markdown entry that is not a decision,
// project or preference.
const referenceCategory = "REFERENCE"

// supersededStatus is the Status of a decision that a later one replaced.
const supersededStatus = "superseded"

// markdownHits are the entries of every *.md file in dir, cited relative
// to base as file.md#Lline, that match q. A file that cannot be read is
// skipped: one bad file must not hide the rest of memory.
func markdownHits(dir, base string, withRetired bool, q query) []Hit {
	var files []fileEntries
	for _, f := range markdownFiles(dir) {
		if entries, err := parseMarkdown(f); err == nil {
			files = append(files, fileEntries{path: f, entries: entries})
		}
	}
	return hitsOf(files, base, withRetired, q)
}

// referenceHits are the entries of the reference tier, as markdownHits
// but through the entry cache: retrieval reads them on every prompt.
func referenceHits(l tiers.Layout, withRetired bool, q query) []Hit {
	files := cachedMarkdownFiles(l.ReferenceDir(), filepath.Join(l.StateDir(), entryCacheFile))
	return hitsOf(files, l.ZylosDir, withRetired, q)
}

// fileEntries are the entries of one markdown file.
type fileEntries struct {
	path    string
	entries []entryData
}

// markdownFiles are the *.md files of dir, sorted.
func markdownFiles(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	sort.Strings(files)
	return files
}

// hitsOf turns the entries that match q into scored hits; the others cost
// no citation string. A superseded decision is the markdown form of a
// retired record: left out unless withRetired.
func hitsOf(files []fileEntries, base string, withRetired bool, q query) []Hit {
	var hits []Hit
	for _, f := range files {
		cite := citePath(base, f.path)
		for _, e := range f.entries {
			if !withRetired && e.Status == supersededStatus {
				continue
			}
			if s := q.score(e.Title, e.Tags); s > 0 {
				hits = append(hits, Hit{Category: e.Category, Title: e.Title, Path: fmt.Sprintf("%s#L%d", cite, e.Line),
					Tags: e.Tags, Status: e.Status, Score: s, date: e.Date})
			}
		}
	}
	return hits
}

func entryCategory(k tiers.EntryKind) string {
	switch k {
	case tiers.KindDecision, tiers.KindProject, tiers.KindPreference:
		return strings.ToUpper(string(k))
	}
	return referenceCategory
}

// entryTags reads an optional "Tags: a, b" field of a markdown entry.
func entryTags(e tiers.Entry) []string {
	var tags []string
	for _, t := range strings.Split(e.Fields["Tags"], ",") {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}
