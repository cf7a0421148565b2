package dashboard

import (
	"bufio"
	"bytes"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

type sessionsData struct {
	Year     int
	Years    []int
	Calendar template.HTML
	Days     int
	Unit     string
	Err      string
}

// sessions draws a year of session logs as a calendar (?year=).
func (s *site) sessions(r *http.Request) (page, error) {
	loc := s.location()
	days, unit, err := s.logDays(r)
	d := sessionsData{Unit: unit}
	if err != nil {
		d.Err = err.Error()
	}
	years := map[int]bool{}
	for day := range days {
		if y, err := strconv.Atoi(day[:4]); err == nil {
			years[y] = true
		}
	}
	for y := range years {
		d.Years = append(d.Years, y)
	}
	sort.Ints(d.Years)
	d.Year = s.o.Now().In(loc).Year()
	if len(d.Years) > 0 {
		d.Year = d.Years[len(d.Years)-1]
	}
	if y := r.URL.Query().Get("year"); y != "" {
		n, err := strconv.Atoi(y)
		if err != nil || n < 1970 || n > 9999 {
			return page{}, badRequest(fmt.Sprintf("Year %q: want a year such as 2026.", clip(y, 40)))
		}
		d.Year = n
	}
	inYear := map[string]int{}
	for day, n := range days {
		if strings.HasPrefix(day, strconv.Itoa(d.Year)+"-") {
			inYear[day] = n
		}
	}
	d.Days = len(inYear)
	d.Calendar = calendar(d.Year, inYear, unit, loc)
	return page{Name: "sessions", Title: fmt.Sprintf("Sessions %d", d.Year), Data: d}, nil
}

func (s *site) location() *time.Location {
	loc, err := s.o.Layout.Location()
	if err != nil {
		return time.Local
	}
	return loc
}

// logDays are the days with a session log and each one's lines, as the
// search index counted them; without the index, each one's bytes, from
// the directories.
func (s *site) logDays(r *http.Request) (map[string]int, string, error) {
	days := map[string]int{}
	ix, err := s.openIndex()
	if err == nil {
		defer ix.Close()
		lines, lerr := ix.LogLines(r.Context())
		if lerr == nil {
			for _, d := range lines {
				days[d.Day] += d.Lines
			}
			return days, "lines", nil
		}
		err = lerr
	}
	for _, dir := range []string{s.o.Layout.SessionsDir(), s.o.Layout.ArchiveDir()} {
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			if day, ok := logDayOf(de.Name()); ok && de.Type().IsRegular() {
				if info, err := de.Info(); err == nil {
					days[day] += int(info.Size())
				}
			}
		}
	}
	return days, "bytes", fmt.Errorf("%v; shading by size", err)
}

// logDayOf is the day a log's name gives (2026-11-16.md, 2026-11-16-1.md).
func logDayOf(name string) (string, bool) {
	if !strings.HasSuffix(name, ".md") || len(name) < 13 {
		return "", false
	}
	if _, err := time.Parse(time.DateOnly, name[:10]); err != nil {
		return "", false
	}
	return name[:10], true
}

type logLine struct {
	N    int
	Text string
}

type dayLog struct {
	Rel   string
	Lines []logLine
	Cut   bool
	Err   string
}

type dayData struct {
	Date       string
	Prev, Next string
	Logs       []dayLog
}

// day shows the session logs of one day (?date=YYYY-MM-DD), line by line,
// each line an anchor (#L42) that search citations link to.
func (s *site) day(r *http.Request) (page, error) {
	date := r.URL.Query().Get("date")
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return page{}, badRequest(fmt.Sprintf("Date %q: want YYYY-MM-DD.", clip(date, 40)))
	}
	l := s.o.Layout
	d := dayData{Date: date, Prev: t.AddDate(0, 0, -1).Format(time.DateOnly), Next: t.AddDate(0, 0, 1).Format(time.DateOnly)}
	for _, dir := range []string{"sessions", "archive"} {
		des, _ := os.ReadDir(l.MemoryDir() + "/" + dir)
		for _, de := range des {
			if day, ok := logDayOf(de.Name()); ok && day == date {
				d.Logs = append(d.Logs, readLog(l, "memory/"+dir+"/"+de.Name()))
			}
		}
	}
	if currentDay(l) == date {
		d.Logs = append(d.Logs, readLog(l, "memory/sessions/current.md"))
	}
	if len(d.Logs) == 0 {
		return page{Name: "day", Title: "Session log " + date, Data: d}, notFound("No session log for " + date + ".")
	}
	return page{Name: "day", Title: "Session log " + date, Data: d}, nil
}

// currentDay is the date of current.md's header, or "".
func currentDay(l tiers.Layout) string {
	f, err := regfile.Open(l.CurrentSession())
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	day, _ := tiers.SessionDate(string(head[:n]))
	return day
}

func readLog(l tiers.Layout, rel string) dayLog {
	out := dayLog{Rel: rel}
	abs, err := memPath(l, rel)
	if err != nil {
		out.Err = err.Error()
		return out
	}
	data, cut, err := readShown(abs)
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Cut = cut
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxShown)
	for n := 1; sc.Scan(); n++ {
		out.Lines = append(out.Lines, logLine{n, strings.ToValidUTF8(sc.Text(), "\uFFFD")})
	}
	return out
}

type messageData struct {
	ID         int64
	Prev, Next int64
	Text       string
}

// message shows one C4 conversation (?id=N), as c4 fetch prints it.
func (s *site) message(r *http.Request) (page, error) {
	raw := r.URL.Query().Get("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		return page{}, badRequest(fmt.Sprintf("Message id %q: want a number from 1.", clip(raw, 40)))
	}
	db, err := c4sync.Open(s.o.Layout.C4DB())
	if err != nil {
		return page{}, unreadable(err)
	}
	defer db.Close()
	text, err := db.Fetch(id, id)
	if err != nil {
		return page{}, unreadable(err)
	}
	return page{Name: "message", Title: fmt.Sprintf("C4 message %d", id),
		Data: messageData{ID: id, Prev: id - 1, Next: id + 1, Text: strings.ToValidUTF8(text, "\uFFFD")}}, nil
}
