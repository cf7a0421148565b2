package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"path"
	"strings"
)

// cookieName carries the session value after the URL has brought the
// token once. The value is not the token, and the cookie is scoped to the
// dashboard's secret path (guard.prefix), so a server on another port of
// the same host, or another home's dashboard, is never sent it.
const cookieName = "zylos_dashboard"

// maxQuery bounds a request's query string; no page needs more, and a
// long one is refused before any work is done for it.
const maxQuery = 4096

// contentPolicy lets a page load only the dashboard's own stylesheet,
// script (live.js, which listens for changes and fetches the page again)
// and the images drawn inline, connect only to itself and post only to
// itself.
const contentPolicy = "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// guard holds what every request is checked against.
type guard struct {
	token string
	csrf  string
	// prefix is the secret path every page is served under ("/" and 32 hex
	// digits, derived from the token, so stable across restarts); the
	// cookie is scoped to it.
	prefix string
	// session is the cookie's value: derived from the token, never it.
	session string
	hosts   map[string]bool
	// anyIPPort, for a server bound to a wildcard address, admits any IP
	// literal with the bound port (an IP literal cannot be rebound by DNS).
	anyIPPort string
}

// derive is a secret of its own for one use of the token.
func derive(token, use string) string {
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte(use))
	return hex.EncodeToString(mac.Sum(nil))
}

func newGuard(token string, boundAddrs []string) *guard {
	g := &guard{token: token, csrf: derive(token, "csrf"), prefix: "/" + derive(token, "path")[:32],
		session: derive(token, "session"), hosts: map[string]bool{}}
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
			g.login(w, r, tok)
			return
		}
		rest, ok := g.strip(r.URL.Path)
		if !ok {
			refuse(w, http.StatusUnauthorized, "This dashboard needs its token. Run `zylos-memory ui` for its address.")
			return
		}
		if !g.hasSession(r) {
			refuse(w, http.StatusUnauthorized, "This dashboard needs its token. Run `zylos-memory ui` for its address.")
			return
		}
		proveConn(r)
		if rest == "" {
			// The secret path without its slash: the pages' relative links
			// need it.
			http.Redirect(w, r, g.prefix+"/", http.StatusSeeOther)
			return
		}
		r.URL.Path, r.URL.RawPath = cleanPath(rest), ""
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

// login takes the token from the URL: a wrong one is refused; the right
// one sets the session cookie, scoped to the secret path, and sends the
// browser to the same page under that path, without the token. The page
// is a path of this dashboard whatever the request's path looks like
// ("//evil.example/" is "/evil.example" here, never another site).
func (g *guard) login(w http.ResponseWriter, r *http.Request, tok string) {
	if !g.validToken(tok) {
		refuse(w, http.StatusUnauthorized, "Wrong token. Run `zylos-memory ui` for the dashboard's address.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: g.session, Path: g.prefix + "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	rest, ok := g.strip(r.URL.Path)
	if !ok {
		rest = r.URL.Path
	}
	target := g.prefix + cleanPath(rest)
	q := r.URL.Query()
	q.Del("token")
	if enc := q.Encode(); enc != "" {
		target += "?" + enc
	}
	w.Header().Set("Location", target)
	w.WriteHeader(http.StatusSeeOther)
}

// hasSession reports a request that carries the session cookie. Every
// cookie of the name is looked at: a browser may also send one of another
// path (an older dashboard's, set at "/").
func (g *guard) hasSession(r *http.Request) bool {
	for _, c := range r.CookiesNamed(cookieName) {
		if subtle.ConstantTimeCompare([]byte(c.Value), []byte(g.session)) == 1 {
			return true
		}
	}
	return false
}

// cleanPath is p as a rooted path with no "..", "." or doubled slash (a
// backslash is a slash, as browsers read it), keeping a final slash.
func cleanPath(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	c := path.Clean("/" + p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// strip is a request path without the secret prefix, and whether it had
// it ("" for the prefix alone).
func (g *guard) strip(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, g.prefix)
	if !ok || (rest != "" && rest[0] != '/') {
		return "", false
	}
	return rest, true
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
// The connection is closed after it: a client that is refused holds no
// file of the service's while it idles.
func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Connection", "close")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	w.Write([]byte(msg + "\n"))
}
