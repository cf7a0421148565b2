package recall

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

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
	return entryHits(entryText(markdownFiles(dir)), base, withRetired, q, 0)
}

// referenceHits are the best n entries of the reference tier (all when n
// <= 0), as markdownHits but through the entry cache: retrieval reads
// them on every prompt.
func referenceHits(l tiers.Layout, withRetired bool, q query, n int) []Hit {
	text := cachedEntryText(l.ReferenceDir(), filepath.Join(l.StateDir(), entryCacheFile))
	return entryHits(text, l.ZylosDir, withRetired, q, n)
}

// markdownFiles are the *.md files of dir, sorted.
func markdownFiles(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	sort.Strings(files)
	return files
}

// entryHits are the entries of an entry text (see writeSection) that
// match q, scored, the best n of them (all when n <= 0) as in indexHits;
// only the lines the pre-filter lets through are decoded. A superseded
// decision is the markdown form of a retired record: left out unless
// withRetired.
func entryHits(text, base string, withRetired bool, q query, n int) []Hit {
	matches := q.bestLines(text, n, func(line string) (points, prio int) {
		e, ok := parseEntryLine(line) // a section header is no entry line
		if !ok || !withRetired && e.status == supersededStatus {
			return 0, 0
		}
		var buf [8]string
		return q.score(e.title, e.appendTags(buf[:0])), priority(e.category)
	})
	if len(matches) == 0 {
		return nil
	}
	sections := sectionStarts(text)
	hits := make([]Hit, 0, len(matches))
	cur, cite := -1, ""
	for _, m := range matches {
		at := int(m.i)
		s := cur
		for s+1 < len(sections) && sections[s+1] < at {
			s++
		}
		if s < 0 {
			continue // an entry before any section: a damaged text
		}
		if s != cur {
			path, _, ok := parseSectionHeader(text[sections[s]:])
			if !ok {
				continue
			}
			cur, cite = s, citePath(base, path)
		}
		e, _ := parseEntryLine(lineAt(text, at))
		var date time.Time
		if e.date != "-" {
			date, _ = time.Parse(time.RFC3339, e.date)
		}
		hits = append(hits, Hit{Category: e.category, Title: e.title, Path: fmt.Sprintf("%s#L%d", cite, e.line),
			Tags: e.appendTags(nil), Status: e.status, Score: int(m.score), date: date})
	}
	return hits
}

// sectionStarts are the offsets of the section header lines of an entry
// text, in order.
func sectionStarts(text string) []int {
	var starts []int
	for at := 0; at < len(text); at = nextLine(text, at) {
		if strings.HasPrefix(text[at:], "@ ") {
			starts = append(starts, at)
		}
	}
	return starts
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
