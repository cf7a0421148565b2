package team

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/records"
)

// local is one record of this home's shared categories, as read.
type local struct {
	abs  string
	rel  string // relative to memory/, as the journal names it
	doc  map[string]any
	hash string // of the file as read: the write's hash check
	// entry is what it says, as the team would see it (origin, rev and
	// conflict filled in by whoever needs them).
	entry    *Entry
	origin   string
	private  string
	conflict *records.Conflict
}

// readLocal reads this home's records of the shared categories, by key.
// A record that cannot be read is named in problems, its key kept in
// unreadable, and left alone.
func readLocal(root string) (got map[string]*local, unreadable map[string]bool, problems []string, err error) {
	got, unreadable = map[string]*local{}, map[string]bool{}
	for _, cat := range Shared {
		folder := filepath.Join(root, records.Folder(cat))
		names, err := os.ReadDir(folder)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		for _, n := range names {
			name := n.Name()
			if !strings.HasSuffix(name, ".json") || atomicfile.IsTempName(name) || !n.Type().IsRegular() {
				continue
			}
			abs := filepath.Join(folder, name)
			key := cat + "/" + strings.TrimSuffix(name, ".json")
			data, err := regfile.ReadFileLimit(abs, maxEntry)
			if err != nil {
				unreadable[key] = true
				problems = append(problems, fmt.Sprintf("%s: %v", records.IndexPath(root, abs), err))
				continue
			}
			l, err := localOf(abs, data)
			if err != nil || l.entry.Category != cat {
				unreadable[key] = true
				problems = append(problems, fmt.Sprintf("%s: not a %s record", records.IndexPath(root, abs), cat))
				continue
			}
			got[l.entry.key()] = l
		}
	}
	return got, unreadable, problems, nil
}

// localOf reads one record file.
func localOf(abs string, data []byte) (*local, error) {
	var d map[string]any
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	var r records.Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.ID != strings.TrimSuffix(filepath.Base(abs), ".json") || r.Title == "" {
		return nil, errors.New("id and file name disagree")
	}
	e := &Entry{
		ID: r.ID, Category: r.Category, Title: r.Title, Tags: r.Tags, Content: r.Content,
		Status: r.Status(), RelatedFiles: r.RelatedFiles, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		RetiredReason: r.RetiredReason, ArchivedReason: r.ArchivedReason,
	}
	l := &local{abs: abs, rel: "records/" + filepath.Base(filepath.Dir(abs)) + "/" + filepath.Base(abs),
		doc: d, hash: records.Hash(data), entry: e}
	t := records.TeamOf(d)
	l.origin, l.private, l.conflict = t.Origin, t.Private, t.Conflict
	return l, nil
}

// plainText is what the secret scanner reads of an entry, all that is
// published of it: its title, tags, every string of its content (a line
// each, so that a key spread over lines reads as it was written), its
// retire and archive reasons, and the text kept beside it.
func plainText(e *Entry) string {
	var b strings.Builder
	b.WriteString(e.Title + "\n" + strings.Join(e.Tags, " ") + "\n")
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				b.WriteString(k + ": ")
				walk(v[k])
			}
		default:
			fmt.Fprintf(&b, "%v\n", v)
		}
	}
	walk(e.Content)
	b.WriteString(e.RetiredReason + "\n" + e.ArchivedReason + "\n")
	if c := e.Conflict; c != nil {
		b.WriteString(c.Title + "\n" + strings.Join(c.Tags, " ") + "\n")
		walk(c.Content)
	}
	return b.String()
}

func readFile(abs string) ([]byte, error) { return regfile.ReadFileLimit(abs, maxEntry) }
