package dashboard

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Live pages: the service tells an open page when what it shows may have
// changed (server-sent events on /events), and the page's script fetches
// the page again and swaps its content in. The browser never polls; the
// service looks at a few files' stamps four times a second, and only while
// a page listens.

// watchEvery is how often the service looks at the stamps.
const watchEvery = 250 * time.Millisecond

// heartbeatEvery keeps an idle stream open through proxies and tells a
// closed one apart.
const heartbeatEvery = 25 * time.Second

// maxStreams bounds the pages listening at once: each holds a connection.
const maxStreams = 16

// liveSources are what the pages show that changes while the agent works,
// each with the files whose stamps (size and modification time) say so.
func liveSources(o Options) map[string][]string {
	l := o.Layout
	git := filepath.Join(l.MemoryDir(), ".git")
	c4 := l.C4DB()
	sched := filepath.Join(l.StateDir(), "scheduler.db")
	index := filepath.Join(l.StateDir(), "search.db")
	return map[string][]string{
		// a commit moves a ref (a rename into refs/heads) and logs it
		"journal": {filepath.Join(git, "HEAD"), filepath.Join(git, "refs", "heads"), filepath.Join(git, "packed-refs"), filepath.Join(git, "logs", "HEAD")},
		"c4":      {c4, c4 + "-wal"},
		"tasks":   {sched, sched + "-wal"},
		"hooks":   {filepath.Join(l.StateDir(), "sessions")},
		"index":   {index, index + "-wal"},
		// a sync replaces the exchange's state in its directory
		"team": {filepath.Join(l.StateDir(), "team")},
	}
}

// hub fans the changes out to the listening pages.
type hub struct {
	sources map[string][]string

	mu      sync.Mutex
	subs    map[chan string]struct{}
	stamps  map[string]string
	running bool
	done    chan struct{}
}

func newHub(o Options) *hub {
	return &hub{sources: liveSources(o), subs: map[chan string]struct{}{}}
}

// subscribe adds a listener; nil when there are maxStreams already. The
// watch runs while anyone listens.
func (h *hub) subscribe() chan string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) >= maxStreams {
		return nil
	}
	ch := make(chan string, 1)
	h.subs[ch] = struct{}{}
	if !h.running {
		h.running = true
		h.stamps = h.stampAll()
		go h.watch()
	}
	return ch
}

func (h *hub) unsubscribe(ch chan string) {
	h.mu.Lock()
	delete(h.subs, ch)
	h.mu.Unlock()
}

// publish tells every listener what changed; one that has not read the
// last news yet keeps it (the page fetches itself once for both).
func (h *hub) publish(what string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- what:
		default:
		}
	}
}

// watch compares the stamps every watchEvery until no one listens.
func (h *hub) watch() {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for range t.C {
		now := h.stampAll()
		h.mu.Lock()
		if len(h.subs) == 0 {
			h.running = false
			h.mu.Unlock()
			return
		}
		var changed []string
		for src, stamp := range now {
			if h.stamps[src] != stamp {
				changed = append(changed, src)
			}
		}
		h.stamps = now
		h.mu.Unlock()
		if len(changed) > 0 {
			sort.Strings(changed)
			h.publish(strings.Join(changed, " "))
		}
	}
}

// stampAll is each source's stamp: its files' sizes and modification times.
func (h *hub) stampAll() map[string]string {
	out := make(map[string]string, len(h.sources))
	for src, paths := range h.sources {
		var b strings.Builder
		for _, p := range paths {
			if st, err := os.Stat(p); err == nil {
				fmt.Fprintf(&b, "%d.%d;", st.Size(), st.ModTime().UnixNano())
			} else {
				b.WriteString("-;")
			}
		}
		out[src] = b.String()
	}
	return out
}

// events streams the changes to one page until it goes.
func (s *site) events(w http.ResponseWriter, r *http.Request) {
	ch := s.live.subscribe()
	if ch == nil {
		refuse(w, http.StatusServiceUnavailable, "Too many pages are listening for changes; close some.")
		return
	}
	defer s.live.unsubscribe(ch)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	if r.Method == http.MethodHead {
		return
	}
	// The stream outlives the server's read and write timeouts.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	if rc.Flush() != nil {
		return
	}
	beat := time.NewTicker(heartbeatEvery)
	defer beat.Stop()
	ctx, stopped := r.Context(), s.live.stopped()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stopped:
			return
		case what := <-ch:
			fmt.Fprintf(w, "event: change\ndata: %s\n\n", what)
		case <-beat.C:
			fmt.Fprint(w, ": still here\n\n")
		}
		if rc.Flush() != nil {
			return
		}
	}
}

// stop ends every stream, for a server that shuts down (a stream is never
// idle, so the shutdown would wait for it otherwise).
func (h *hub) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done == nil {
		h.done = make(chan struct{})
	}
	select {
	case <-h.done:
	default:
		close(h.done)
	}
}

// stopped is closed once stop is called.
func (h *hub) stopped() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done == nil {
		h.done = make(chan struct{})
	}
	return h.done
}
