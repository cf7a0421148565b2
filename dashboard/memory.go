package dashboard

import (
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/fulltext"
	"github.com/zylos/zylos-memory/tiers/journal"
	"github.com/zylos/zylos-memory/tiers/records"
)

// shownFile is one memory file on a page: rendered, or why it is not.
type shownFile struct {
	Rel  string // relative to the home
	Size int64
	HTML template.HTML
	Cut  bool
	Err  string
}

func showFile(l tiers.Layout, rel string) shownFile {
	f := shownFile{Rel: rel}
	abs, err := memPath(l, rel)
	var he *httpError
	if errors.As(err, &he) && he.code == http.StatusNotFound {
		f.Err = "missing"
		return f
	}
	if err != nil {
		f.Err = err.Error()
		return f
	}
	data, cut, err := readShown(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.Err = "missing"
	case err != nil:
		f.Err = err.Error()
	default:
		f.Size, f.Cut, f.HTML = int64(len(data)), cut, renderMarkdown(data)
	}
	return f
}

type coreData struct {
	Files      []shownFile
	Budgets    []budgetView
	Changes    []Change
	JournalErr string
}

// core shows the always-injected memory rendered, and its history.
func (s *site) core(r *http.Request) (page, error) {
	l := s.home(r.Context()).Layout
	var d coreData
	files := l.Kind().Injected
	for _, f := range files {
		d.Files = append(d.Files, showFile(l, "memory/"+f.Name))
	}
	d.Budgets, _ = budgets(l)
	for _, f := range files {
		cs, err := s.lastChanges(r.Context(), journal.Query{Path: f.Name, Limit: 20})
		d.Changes, d.JournalErr = append(d.Changes, cs...), err
	}
	sort.Slice(d.Changes, func(i, j int) bool { return d.Changes[i].Time.After(d.Changes[j].Time) })
	return page{Name: "core", Title: "Core memory", Data: d}, nil
}

// pageSize is how many entries a listing shows at once.
const pageSize = 200

type refFile struct {
	Rel     string
	Entries int
	Err     string
}

type referenceData struct {
	Files     []refFile
	Census    []censusRow
	Statuses  []string
	CensusErr string
	// One listing: a file's entries, or a category's records.
	Listing  string
	Tier     string
	Category string
	Status   string
	Entries  []entries.Entry
	Docs     []fulltext.Doc
	Total    int
	Page     int
	Pages    int
	Prev     string // the previous page's address, or ""
	Next     string
	ListErr  string
}

// paginate fills the page fields of d for total items and the listing's
// address base (which ends in a query).
func (d *referenceData) paginate(total, page int, base url.Values) {
	d.Total, d.Page, d.Pages = total, page, (total+pageSize-1)/pageSize
	link := func(n int) string {
		base.Set("page", strconv.Itoa(n))
		return "reference?" + base.Encode()
	}
	if page > 1 {
		d.Prev = link(page - 1)
	}
	if page < d.Pages {
		d.Next = link(page + 1)
	}
}

// reference lists the reference files and the record categories, and one
// of them when asked (?file= or ?category=&status=).
func (s *site) reference(r *http.Request) (page, error) {
	l := s.o.Layout
	q := r.URL.Query()
	d := referenceData{Category: q.Get("category"), Status: q.Get("status")}
	d.Files = s.referenceFiles(s.home(r.Context()).Layout)
	d.Census, d.Statuses, d.CensusErr = s.census(r.Context())
	n, err := pageNumber(q.Get("page"))
	if err != nil {
		return page{}, err
	}
	if file := q.Get("file"); file != "" {
		abs, err := memPath(l, file)
		if err != nil {
			return page{}, err
		}
		d.Listing = file
		ents, err := s.entries.parse(abs)
		if err != nil {
			d.ListErr = err.Error()
		}
		d.paginate(len(ents), n, url.Values{"file": {file}})
		d.Entries = ents[min((n-1)*pageSize, len(ents)):min(n*pageSize, len(ents))]
		return page{Name: "reference", Title: "Reference: " + file, Data: d}, nil
	}
	if d.Category != "" || d.Status != "" {
		d.Tier = q.Get("tier")
		dir, ok := map[string]string{"": "memory", fulltext.TierRecords: "memory/records", fulltext.TierReference: "memory/reference"}[d.Tier]
		if !ok {
			return page{}, badRequest(fmt.Sprintf("Tier %q: want records or reference.", clip(d.Tier, 40)))
		}
		d.Listing = "records"
		ix, err := s.openIndex()
		if err != nil {
			d.ListErr = err.Error()
		} else {
			defer ix.Close()
			var total int
			d.Docs, total, err = ix.Documents(r.Context(), fulltext.Listing{Dir: dir, Category: d.Category,
				Status: d.Status, Offset: (n - 1) * pageSize, Limit: pageSize})
			if err != nil {
				d.ListErr = err.Error()
			}
			d.paginate(total, n, url.Values{"tier": {d.Tier}, "category": {d.Category}, "status": {d.Status}})
		}
	}
	return page{Name: "reference", Title: "Reference", Data: d}, nil
}

func pageNumber(s string) (int, error) {
	if s == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 1_000_000 {
		return 0, badRequest(fmt.Sprintf("Page %q: want a number from 1.", clip(s, 40)))
	}
	return n, nil
}

// referenceFiles are the .md files of reference/ (and references.md of a
// v0.7 home) with their entry counts.
func (s *site) referenceFiles(l tiers.Layout) []refFile {
	var rels []string
	for _, name := range l.Kind().EntryFiles {
		rels = append(rels, "memory/"+name)
	}
	if des, err := os.ReadDir(l.ReferenceDir()); err == nil {
		for _, de := range des {
			if de.Type().IsRegular() && strings.HasSuffix(de.Name(), ".md") && !strings.HasPrefix(de.Name(), ".") {
				rels = append(rels, "memory/reference/"+de.Name())
			}
		}
	}
	var out []refFile
	for _, rel := range rels {
		f := refFile{Rel: rel}
		if ents, err := s.entries.parse(filepath.Join(l.ZylosDir, filepath.FromSlash(rel))); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			f.Err = err.Error()
		} else {
			f.Entries = len(ents)
		}
		out = append(out, f)
	}
	return out
}

type entryData struct {
	Rel        string
	Line       int
	Entry      *entries.Entry
	EntryHTML  template.HTML
	Record     *records.Record
	RecordRel  string
	RecordErr  string
	Content    []keyValue
	Changes    []Change
	JournalErr string
}

type keyValue struct{ Key, Value string }

// entry shows one entry (?path=<tier file>&line=N) or record
// (?path=<record .json>): its text, its record's fields and change log,
// and the journal's changes of its file.
func (s *site) entry(r *http.Request) (page, error) {
	l := s.o.Layout
	q := r.URL.Query()
	rel := q.Get("path")
	abs, err := memPath(l, rel)
	if err != nil {
		return page{}, err
	}
	d := entryData{Rel: rel}
	title := rel
	switch {
	case strings.HasSuffix(rel, ".json"):
		d.RecordRel = rel
	case strings.HasSuffix(rel, ".md"):
		line, err := strconv.Atoi(q.Get("line"))
		if err != nil || line < 1 {
			return page{}, badRequest("An entry of a markdown file needs its line: ?path=...&line=N.")
		}
		ents, err := s.entries.parse(abs)
		if err != nil {
			return page{}, unreadable(err)
		}
		for i := range ents {
			if ents[i].Line == line {
				e := ents[i]
				d.Entry = &e
			}
		}
		if d.Entry == nil {
			return page{}, notFound(fmt.Sprintf("No entry starts at line %d of %s.", line, rel))
		}
		d.Line, title = line, d.Entry.Title
		id, _ := entries.Identity(d.Entry.Text)
		d.EntryHTML = renderMarkdown([]byte(d.Entry.Text))
		if id != "" {
			d.RecordRel = s.recordOf(id)
		}
	default:
		return page{}, badRequest("Only .md entries and .json records have an entry page.")
	}
	if d.RecordRel != "" {
		if rabs, err := memPath(l, d.RecordRel); err != nil {
			d.RecordErr = err.Error()
		} else if rec, err := records.ReadRecord(rabs); err != nil {
			d.RecordErr = err.Error()
		} else {
			d.Record = rec
			if d.Entry == nil {
				title = rec.Title
			}
			keys := make([]string, 0, len(rec.Content))
			for k := range rec.Content {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				d.Content = append(d.Content, keyValue{k, records.FieldText(rec.Content[k])})
			}
		}
	}
	files := []string{rel}
	if d.RecordRel != "" && d.RecordRel != rel {
		files = append(files, d.RecordRel)
	}
	for _, p := range files {
		cs, err := s.lastChanges(r.Context(), journal.Query{Path: strings.TrimPrefix(p, "memory/"), Limit: 50})
		d.Changes, d.JournalErr = append(d.Changes, cs...), err
	}
	return page{Name: "entry", Title: title, Data: d}, nil
}

// recordOf is the path of the record with id, found among the record
// categories' folders, or "".
func (s *site) recordOf(id string) string {
	if !records.ValidID(id) {
		return ""
	}
	for _, c := range records.Categories {
		rel := "memory/records/" + records.Folder(c) + "/" + id + ".json"
		if _, err := os.Stat(filepath.Join(s.o.Layout.ZylosDir, filepath.FromSlash(rel))); err == nil {
			return rel
		}
	}
	return ""
}
