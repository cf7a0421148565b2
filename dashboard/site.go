package dashboard

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/zylos/zylos-memory/doctor"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/home"
	"github.com/zylos/zylos-memory/tiers/team"
)

//go:embed web
var webFiles embed.FS

// Options are what a dashboard shows and how it finds it.
type Options struct {
	Layout tiers.Layout
	Log    *slog.Logger
	Now    func() time.Time
	// Open opens the home for one page (its kind detected once, its
	// settings read): what its restore, undo and history go through. nil
	// opens Layout on Now.
	Open func() *home.Home
	// Health runs the doctor's checks; nil shows none. It runs in the
	// background (it starts hook processes), never while a page waits.
	Health func() []doctor.Check
	// Warnings are shown on the overview (a non-loopback address, say).
	Warnings []string
}

// pageTimeout bounds the work of one page, its wait for a turn included.
const pageTimeout = 10 * time.Second

// healthEvery is how old the doctor's checks may grow before a page view
// runs them again (in the background).
const healthEvery = 5 * time.Minute

// site answers the dashboard's requests.
type site struct {
	o     Options
	guard *guard
	tpl   *template.Template
	mux   *http.ServeMux
	// turn lets one page do its work at a time: the dashboard takes one
	// of the service's CPUs at most, and the hooks keep the other.
	turn    chan struct{}
	health  healthCache
	sizes   sizeCache
	entries entryCache
	live    *hub
}

// livePages are the pages that update themselves while the agent works.
var livePages = map[string]bool{"/": true, "/core": true, "/entry": true, "/timeline": true, "/day": true, "/charts": true, "/team": true}

// NewHandler is the dashboard of o for a server bound to addrs (host:port),
// with token as its secret. Listen uses it; tests serve it with httptest.
func NewHandler(o Options, token string, addrs ...string) http.Handler {
	s := newSite(o, token, addrs...)
	return s.guard.wrap(s.mux)
}

func newSite(o Options, token string, addrs ...string) *site {
	if o.Now == nil {
		//processglobal: the default clock of a dashboard given none
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	g := newGuard(token, addrs)
	s := &site{o: o, guard: g, tpl: templates(g.csrf), turn: make(chan struct{}, 1), live: newHub(o)}
	s.health.run = o.Health
	s.health.done = func() { s.live.publish("health") }
	s.mux = http.NewServeMux()
	s.routes()
	return s
}

func (s *site) routes() {
	pages := map[string]func(*http.Request) (page, error){
		"/":          s.overview,
		"/core":      s.core,
		"/reference": s.reference,
		"/entry":     s.entry,
		"/sessions":  s.sessions,
		"/day":       s.day,
		"/message":   s.message,
		"/search":    s.search,
		"/timeline":  s.timeline,
		"/change":    s.change,
		"/charts":    s.charts,
		"/team":      s.team,
	}
	for path, fn := range pages {
		if path == "/" {
			path = "/{$}"
		}
		s.mux.Handle("GET "+path, s.page(fn))
	}
	s.mux.Handle("GET /restore", s.page(s.restoreConfirm))
	s.mux.Handle("POST /restore", s.page(s.restore))
	s.mux.Handle("GET /undo", s.page(s.undoConfirm))
	s.mux.Handle("POST /undo", s.page(s.undo))
	s.mux.HandleFunc("POST /health", s.refreshHealth)
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", http.MethodPost)
		refuse(w, http.StatusMethodNotAllowed, "Checking health again is a POST from the overview's button.")
	})
	s.mux.HandleFunc("GET /style.css", asset("web/style.css", "text/css; charset=utf-8"))
	s.mux.HandleFunc("GET /live.js", asset("web/live.js", "text/javascript; charset=utf-8"))
	s.mux.HandleFunc("GET /events", s.events)
	s.mux.Handle("/", s.page(func(*http.Request) (page, error) {
		return page{}, notFound("There is no such page.")
	}))
}

// asset answers one embedded file.
func asset(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		data, _ := webFiles.ReadFile(name)
		w.Write(data)
	}
}

// page is what a handler hands the layout: the template to fill, the
// title and the data.
type page struct {
	Name  string // template name
	Title string
	Data  any
}

// httpError is an error with the status it answers.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func notFound(msg string) error { return &httpError{http.StatusNotFound, msg} }

// unreadable is a page whose one source cannot be read: the page says
// why, as a 404 of the thing asked for.
func unreadable(err error) error  { return &httpError{http.StatusNotFound, err.Error()} }
func badRequest(msg string) error { return &httpError{http.StatusBadRequest, msg} }

// layoutData is what the common layout reads.
type layoutData struct {
	Title string
	Nav   string
	Home  string
	Kind  *tiers.Kind
	Body  template.HTML
	Live  bool // the page updates itself (live.js)
	Team  bool // the home is in a team: its page is in the menu
}

// page runs fn in its turn, renders its page into a buffer and answers
// it; an error becomes a page saying what went wrong, never a panic.
func (s *site) page(fn func(*http.Request) (page, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
		defer cancel()
		r = r.WithContext(context.WithValue(ctx, homeKey{}, s.openHome()))
		select {
		case s.turn <- struct{}{}:
		case <-ctx.Done():
			refuse(w, http.StatusServiceUnavailable, "The dashboard is busy; try again.")
			return
		}
		defer func() { <-s.turn }()
		var code int
		var body []byte
		niced(func() { code, body = s.render(r, fn) })
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(code)
		if r.Method != http.MethodHead {
			w.Write(body)
		}
	})
}

func (s *site) render(r *http.Request, fn func(*http.Request) (page, error)) (code int, body []byte) {
	kind := s.home(r.Context()).Kind
	defer func() {
		if v := recover(); v != nil {
			s.o.Log.Error("dashboard: internal error", "path", r.URL.Path, "panic", v)
			code, body = s.errorPage(kind, http.StatusInternalServerError, "Internal error: the service's log says more.")
		}
	}()
	p, err := fn(r)
	if err != nil {
		var he *httpError
		if errors.As(err, &he) {
			return s.errorPage(kind, he.code, he.msg)
		}
		s.o.Log.Warn("dashboard", "path", r.URL.Path, "err", err)
		return s.errorPage(kind, http.StatusInternalServerError, err.Error())
	}
	var inner bytes.Buffer
	if err := s.tpl.ExecuteTemplate(&inner, p.Name, p.Data); err != nil {
		s.o.Log.Error("dashboard: template", "page", p.Name, "err", err)
		return s.errorPage(kind, http.StatusInternalServerError, "The page could not be drawn: "+err.Error())
	}
	return http.StatusOK, s.wrapLayout(kind, p.Title, r.URL.Path, template.HTML(inner.String()))
}

func (s *site) errorPage(kind *tiers.Kind, code int, msg string) (int, []byte) {
	var inner bytes.Buffer
	s.tpl.ExecuteTemplate(&inner, "error", map[string]any{"Code": code, "Status": http.StatusText(code), "Message": msg})
	return code, s.wrapLayout(kind, http.StatusText(code), "", template.HTML(inner.String()))
}

// wrapLayout puts a page's body in the common layout, under the kind of
// the home the page was drawn from.
func (s *site) wrapLayout(kind *tiers.Kind, title, path string, body template.HTML) []byte {
	var out bytes.Buffer
	_, noTeam := team.ReadConfig(s.o.Layout)
	err := s.tpl.ExecuteTemplate(&out, "layout", layoutData{Title: title, Nav: path,
		Home: s.o.Layout.ZylosDir, Kind: kind, Body: body, Live: livePages[path], Team: noTeam == nil})
	if err != nil {
		return []byte("<!doctype html><title>error</title><p>" + template.HTMLEscapeString(err.Error()))
	}
	return out.Bytes()
}

// healthCache keeps the doctor's last checks; a refresh runs them in the
// background, one run at a time.
type healthCache struct {
	run     func() []doctor.Check
	mu      sync.Mutex
	checks  []doctor.Check
	at      time.Time
	running bool
	// done, when set, is told that a run finished (the live pages).
	done func()
}

// get returns the last checks and when they ran, and starts a run when
// they are older than maxAge (or were never run).
func (h *healthCache) get(now time.Time, maxAge time.Duration) ([]doctor.Check, time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.run != nil && !h.running && (h.at.IsZero() || now.Sub(h.at) > maxAge) {
		h.running = true
		// Not niced: the checks time the hooks they run.
		go h.refresh()
	}
	return h.checks, h.at, h.running
}

func (h *healthCache) refresh() {
	var checks []doctor.Check
	func() {
		defer func() {
			if v := recover(); v != nil {
				checks = []doctor.Check{{Status: doctor.Fail, Name: "doctor", Detail: "internal error"}}
			}
		}()
		checks = h.run()
	}()
	h.mu.Lock()
	//processglobal: the age of cached checks, on the wall clock
	h.checks, h.at, h.running = checks, time.Now(), false
	h.mu.Unlock()
	if h.done != nil {
		h.done()
	}
}

// refreshHealth runs the doctor's checks again (a POST: it starts hook
// processes) and returns to the overview.
func (s *site) refreshHealth(w http.ResponseWriter, r *http.Request) {
	//processglobal: the age of cached checks, on the wall clock
	s.health.get(time.Now(), 0)
	http.Redirect(w, r, s.guard.prefix+"/", http.StatusSeeOther)
}

// templates are the pages; csrf is the token every form posts.
func templates(csrf string) *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"csrf":  func() string { return csrf },
		"bytes": formatBytes,
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return t.Local().Format("2006-01-02 15:04")
		},
	}).ParseFS(webFiles, "web/*.html"))
}
