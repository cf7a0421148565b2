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
// to base as file.md#Lline. A superseded decision is the markdown form of a
// retired record: left out unless withRetired. A file that cannot be read
// is skipped: one bad file must not hide the rest of memory.
func markdownHits(dir, base string, withRetired bool) []Hit {
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	sort.Strings(files)
	var hits []Hit
	for _, f := range files {
		entries, err := tiers.ParseFile(f)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.Title == "" || !withRetired && e.Status() == supersededStatus {
				continue
			}
			hits = append(hits, Hit{
				Category: entryCategory(e.Kind),
				Title:    e.Title,
				Path:     fmt.Sprintf("%s#L%d", citePath(base, e.File), e.Line),
				Tags:     entryTags(e),
				Status:   e.Status(),
				date:     e.Date,
			})
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
