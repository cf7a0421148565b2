package dashboard

import (
	"context"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"os"
	"sort"
	"time"

	"github.com/zylos/zylos-memory/doctor"
	"github.com/zylos/zylos-memory/scheduler"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/fulltext"
	"github.com/zylos/zylos-memory/tiers/journal"
)

type budgetView struct {
	File                 string
	Size, Budget, WarnAt int64
	Missing              bool
	Gauge                template.HTML
}

type censusRow struct {
	Tier, Category string
	ByStatus       map[string]int
	Total          int
}

type c4View struct {
	Err   string
	Range c4sync.Range
	Last  *c4sync.Checkpoint
}

type indexView struct {
	Err      string
	Size     int64
	Modified time.Time
}

type overviewData struct {
	Kind       *tiers.Kind
	Home       string
	Warnings   []string
	HasHealth  bool
	Checks     []doctor.Check
	CheckedAt  time.Time
	Checking   bool
	Budgets    []budgetView
	BudgetErr  string
	Census     []censusRow
	Statuses   []string
	CensusErr  string
	C4         c4View
	Tasks      []*scheduler.Task
	TasksErr   string
	Running    bool
	Changes    []Change
	JournalErr string
	Index      indexView
}

func (s *site) overview(r *http.Request) (page, error) {
	l := s.home(r.Context()).Layout
	d := overviewData{Kind: l.Kind(), Home: l.ZylosDir, Warnings: s.o.Warnings, HasHealth: s.o.Health != nil}
	d.Checks, d.CheckedAt, d.Checking = s.health.get(s.o.Now(), healthEvery)
	d.Budgets, d.BudgetErr = budgets(l)
	d.Census, d.Statuses, d.CensusErr = s.census(r.Context())
	d.C4 = c4Overview(l)
	d.Tasks, d.TasksErr = tasks(l)
	d.Running, _ = scheduler.Running(l)
	d.Changes, d.JournalErr = s.lastChanges(r.Context(), journal.Query{Limit: 10})
	d.Index = indexState(l)
	return page{Name: "overview", Title: "Overview", Data: d}, nil
}

// budgets are the always-injected files against their budgets.
func budgets(l tiers.Layout) ([]budgetView, string) {
	bs, err := l.Kind().Budgets(l)
	if err != nil {
		return nil, err.Error()
	}
	out := make([]budgetView, len(bs))
	for i, b := range bs {
		out[i] = budgetView{File: b.File, Size: b.Size, Budget: b.Budget, WarnAt: b.WarnAt, Missing: b.Size < 0}
		if b.Size >= 0 {
			out[i].Gauge = gauge(b.Size, b.Budget, b.WarnAt)
		}
	}
	return out, ""
}

// openIndex opens the search index for reading; it never builds it.
func (s *site) openIndex() (*fulltext.Index, error) {
	return fulltext.OpenRead(fulltext.ScopeOf(s.o.Layout, "", nil), 500*time.Millisecond)
}

// census counts entries and records by category and status, from the
// search index.
func (s *site) census(ctx context.Context) ([]censusRow, []string, string) {
	ix, err := s.openIndex()
	if err != nil {
		return nil, nil, err.Error()
	}
	defer ix.Close()
	counts, err := ix.Census(ctx)
	if err != nil {
		return nil, nil, err.Error()
	}
	rows := map[[2]string]*censusRow{}
	statuses := map[string]bool{}
	for _, c := range counts {
		key := [2]string{c.Tier, c.Category}
		row := rows[key]
		if row == nil {
			row = &censusRow{Tier: c.Tier, Category: c.Category, ByStatus: map[string]int{}}
			rows[key] = row
		}
		row.ByStatus[c.Status] += c.N
		row.Total += c.N
		statuses[c.Status] = true
	}
	out := make([]censusRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tier != out[j].Tier {
			return out[i].Tier < out[j].Tier
		}
		return out[i].Category < out[j].Category
	})
	names := make([]string, 0, len(statuses))
	for st := range statuses {
		names = append(names, st)
	}
	sort.Strings(names)
	return out, names, ""
}

func c4Overview(l tiers.Layout) c4View {
	db, err := c4sync.Open(l.C4DB())
	if err != nil {
		return c4View{Err: err.Error()}
	}
	defer db.Close()
	var v c4View
	if v.Last, err = db.LatestCheckpoint(); err != nil {
		return c4View{Err: err.Error()}
	}
	if v.Range, err = db.Unsummarized(); err != nil {
		return c4View{Err: err.Error()}
	}
	return v
}

func tasks(l tiers.Layout) ([]*scheduler.Task, string) {
	st, err := scheduler.OpenRead(l)
	if err != nil {
		return nil, err.Error()
	}
	defer st.Close()
	ts, err := st.List()
	if err != nil {
		return nil, err.Error()
	}
	return ts, ""
}

func (s *site) lastChanges(ctx context.Context, q journal.Query) ([]Change, string) {
	cs, err := s.changes(ctx, q)
	var gitErr *journal.GitError
	switch {
	case errors.As(err, &gitErr):
		return nil, "journal: " + err.Error()
	case err != nil:
		return nil, err.Error()
	}
	return cs, ""
}

func indexState(l tiers.Layout) indexView {
	st, err := os.Stat(fulltext.ScopeOf(l, "", nil).DBPath())
	if errors.Is(err, fs.ErrNotExist) {
		return indexView{Err: "not built yet (run: zylos-memory reindex)"}
	}
	if err != nil {
		return indexView{Err: err.Error()}
	}
	return indexView{Size: st.Size(), Modified: st.ModTime()}
}
