package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
)

// cookieName carries the token after the URL has brought it once.
const cookieName = "zylos_dashboard"

// maxQuery bounds a request's query string; no page needs more, and a
// long one is refused before any work is done for it.
const maxQuery = 4096

// contentPolicy lets a page load only the dashboard's own stylesheet and
// the images drawn inline, run no script and post only to itself.
const contentPolicy = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'"

// guard holds what every request is checked against.
type guard struct {
	token string
	csrf  string
	hosts map[string]bool
	// anyIPPort, for a server bound to a wildcard address, admits any IP
	// literal with the bound port (an IP literal cannot be rebound by DNS).
	anyIPPort string
}

func newGuard(token string, boundAddrs []string) *guard {
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte("csrf"))
	g := &guard{token: token, csrf: hex.EncodeToString(mac.Sum(nil)), hosts: map[string]bool{}}
	for _, a := range boundAddrs {
		host, port, err := net.SplitHostPort(a)
		if err != nil {
			continue
		}
		g.hosts[strings.ToLower(a)] = true
		for _, h := range []string{"localhost", "127.0.0.1", "[::1]"} {
			g.hosts[h+":"+port] = true
		}
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			g.anyIPPort = port
		}
	}
	return g
}

// wrap checks every request before next sees it: headers first, so even
// a refusal carries them; then the Host, the size of the query, the token
// and, for a POST, the CSRF token.
func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		// The first URL carries the token: it must not leak to another site.
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if !g.hostAllowed(r.Host) {
			refuse(w, http.StatusMisdirectedRequest, "This dashboard answers only to its own address (Host "+r.Host+" refused).")
			return
		}
		if len(r.URL.RawQuery) > maxQuery {
			refuse(w, http.StatusRequestURITooLong, "The query string is too long.")
			return
		}
		if tok := r.URL.Query().Get("token"); tok != "" {
			if !g.validToken(tok) {
				refuse(w, http.StatusUnauthorized, "Wrong token. Run `zylos-memory ui` for the dashboard's address.")
				return
			}
			// Keep the token in a cookie and take it out of the address bar.
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: g.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q := r.URL.Query()
			q.Del("token")
			target := r.URL.Path
			if enc := q.Encode(); enc != "" {
				target += "?" + enc
			}
			http.Redirect(w, r, target, http.StatusSeeOther)
			return
		}
		c, err := r.Cookie(cookieName)
		if err != nil || !g.validToken(c.Value) {
			refuse(w, http.StatusUnauthorized, "This dashboard needs its token. Run `zylos-memory ui` for its address.")
			return
		}
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodPost:
			r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
			if !g.validCSRF(r) {
				refuse(w, http.StatusForbidden, "The form's CSRF token is missing or wrong: reload the page and try again.")
				return
			}
		default:
			h.Set("Allow", "GET, HEAD, POST")
			refuse(w, http.StatusMethodNotAllowed, "Method not allowed.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (g *guard) hostAllowed(host string) bool {
	host = strings.ToLower(host)
	if g.hosts[host] {
		return true
	}
	if g.anyIPPort == "" {
		return false
	}
	h, port, err := net.SplitHostPort(host)
	return err == nil && port == g.anyIPPort && net.ParseIP(strings.Trim(h, "[]")) != nil
}

func (g *guard) validToken(tok string) bool {
	return subtle.ConstantTimeCompare([]byte(tok), []byte(g.token)) == 1
}

// validCSRF checks the form's csrf field and, when the browser names one,
// that the request's Origin is this dashboard.
func (g *guard) validCSRF(r *http.Request) bool {
	if origin := r.Header.Get("Origin"); origin != "" && origin != "null" {
		o := strings.TrimPrefix(strings.TrimPrefix(origin, "http://"), "https://")
		if !g.hostAllowed(o) {
			return false
		}
	}
	if err := r.ParseForm(); err != nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(g.csrf)) == 1
}

// refuse answers a refused request with a short plain page.
func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	w.Write([]byte(msg + "\n"))
}
