package fulltext

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// doc is one document of the index: what is searched (title, tags, body)
// and what cites it (path and line, or the C4 row id as line).
type doc struct {
	line     int
	day      string // YYYY-MM-DD, "" when unknown
	status   string // active, retired or archived
	category string
	title    string
	tags     string // space separated
	body     string
}

// recordDoc is the document of one record file: title, tags and every
// content field.
func recordDoc(path string) (doc, error) {
	r, err := records.ReadRecord(path)
	if err != nil {
		return doc{}, err
	}
	day, _ := dayPrefix(r.UpdatedAt)
	body := contentText(r.Content)
	if r.Team != nil && r.Team.Origin != "" {
		// last, and found by its home's name ("what did the laptop decide")
		body += originLine + r.Team.Origin + "\n"
	}
	return doc{
		day: day, status: r.Status(), category: records.Display(r.Category),
		title: toValidUTF8([]byte(r.Title)), tags: toValidUTF8([]byte(strings.Join(r.Tags, " "))),
		body: clip(toValidUTF8([]byte(body)), 4*maxDocBytes),
	}, nil
}

// originLine starts the line of a record's document that names the home
// of the team it came from.
const originLine = "from the home "

// originIn is the home a record's document names as its origin ("" for
// none), and the document without that line.
func originIn(body string) (origin, rest string) {
	i := strings.LastIndex(body, "\n"+originLine)
	if i < 0 {
		return "", body
	}
	name, after, _ := strings.Cut(body[i+1+len(originLine):], "\n")
	return name, body[:i+1] + after
}

// contentText renders a record's content, field by field in name order,
// lists joined with "; ".
func contentText(content map[string]any) string {
	keys := make([]string, 0, len(content))
	for k := range content {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		if s := records.FieldText(content[k]); s != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, s)
		}
	}
	return b.String()
}

// entryDocs are the entries of a markdown tier file (decisions, projects,
// preferences, any ### entry), their text without the id comment. A
// superseded or archived decision counts as retired. With backed, an
// entry that names its record (see entries.Identity) is left out: the
// record's document stands for it, and one memory is found once. ok is
// false for a file with no entries, which is indexed as a log instead.
func entryDocs(path string, backed bool) (docs []doc, ok bool) {
	ents, err := tiers.ParseFile(path)
	if err != nil || len(ents) == 0 {
		return nil, false
	}
	for _, e := range ents {
		if e.Kind == entries.KindSessionLine || e.Kind == entries.KindCoreSection {
			return nil, false
		}
		id, text := entries.Identity(e.Text)
		if backed && id != "" {
			continue
		}
		d := doc{line: e.Line, status: statusActive, category: entryCategory(e.Kind),
			title: toValidUTF8([]byte(e.Title)), tags: toValidUTF8([]byte(e.Fields["Tags"])),
			body: clip(toValidUTF8([]byte(text)), 4*maxDocBytes)}
		if !e.Date.IsZero() {
			d.day = e.Date.Format("2006-01-02")
		}
		switch e.Status() {
		case "superseded", "archived":
			d.status = statusRetired
		}
		docs = append(docs, d)
	}
	return docs, true
}

func entryCategory(k entries.Kind) string {
	switch k {
	case entries.KindDecision, entries.KindProject, entries.KindPreference:
		return strings.ToUpper(string(k))
	}
	return "REFERENCE"
}

// isLogFile reports a session log by its name: current.md or a dated log.
func isLogFile(path string) bool {
	return logDay(path) != "" || strings.HasSuffix(path, string(os.PathSeparator)+"current.md")
}
