package records

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// autoFix corrects the trivial mistakes of the claude-memory plugin's
// auto-fix list instead of failing, telling warn each as an AutoFix. Tags are
// normalized but not capped here: create caps them, update's merge
// decides what to evict.
func autoFix(d doc, create bool, now time.Time, warn func(Warning)) {
	fix := fixTo(warn)
	if d.str("schema_version") == "" {
		d["schema_version"] = SchemaVersion
		fix("schema_version", "set to 1.0")
	}
	if d.str("updated_at") == "" {
		d["updated_at"] = stamp(now)
		fix("updated_at", "set to now")
	}
	if create && d.str("created_at") == "" {
		d["created_at"] = stamp(now)
		fix("created_at", "set to now")
	}
	if id, ok := d["id"].(string); ok && id != "" {
		if slug := Slugify(id); slug != id {
			d["id"] = slug
			fix("id", "slugified to "+slug)
		}
	}
	if c, ok := d.number("confidence"); ok && (c < 0 || c > 1) {
		c = min(1, max(0, c))
		d["confidence"] = json.Number(strconv.FormatFloat(c, 'f', -1, 64))
		fix("confidence", "clamped to [0, 1]")
	}
	if t, ok := d["title"].(string); ok {
		if clean := SanitizeTitle(t); clean != t {
			d["title"] = clean
			fix("title", "stripped of whitespace, control characters and index markers")
		}
	}
	fixTags(d, fix)
}

func fixTags(d doc, fix func(field, what string)) {
	var raw []string
	switch v := d["tags"].(type) {
	case string:
		raw = []string{v}
		fix("tags", "wrapped string in an array")
	case []any:
		for _, t := range v {
			if s, ok := t.(string); ok {
				raw = append(raw, s)
			}
		}
	case nil:
	default:
		return // leave for the schema to report
	}
	var tags []string
	for _, t := range raw {
		if t = SanitizeTag(t); t != "" {
			tags = append(tags, t)
		}
	}
	tags = sortedSet(tags)
	if len(tags) == 0 {
		tags = []string{"untagged"}
		fix("tags", "no usable tag; set to [untagged]")
	}
	d["tags"] = anyList(tags)
}

// capTags keeps the first TagCap tags (sorted) on create.
func capTags(d doc, warn func(Warning)) {
	tags := d.strings("tags")
	if len(tags) > TagCap {
		d["tags"] = anyList(tags[:TagCap])
		fixTo(warn)("tags", "truncated to "+strconv.Itoa(TagCap)+": dropped "+strings.Join(tags[TagCap:], ","))
	}
}
