package dashboard

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/tiers"
)

// Server serves the dashboard of one home on one address.
type Server struct {
	o     Options
	ln    net.Listener
	conns *capListener
	site  *site
	http  *http.Server
	addr  string
	token string
	// Loopback is false when --ui-addr named an address others can reach.
	Loopback bool
}

// Listen binds the dashboard's address: spec "" tries the home's default
// loopback ports (DefaultPorts) and then any free loopback port; any other
// spec is a host:port to bind as given. The bound address is written to
// memory/.state/ for `zylos-memory ui`. The caller holds the service's
// lock, so an address file found there is stale and is replaced.
func Listen(spec string, o Options) (*Server, error) {
	token, err := loadToken(o.Layout)
	if err != nil {
		return nil, err
	}
	ln, err := bind(spec, o)
	if err != nil {
		return nil, err
	}
	capped := newCapListener(ln, maxConns, maxConnsPerPeer)
	s := &Server{o: o, ln: capped, conns: capped, addr: ln.Addr().String(), token: token, Loopback: isLoopback(ln.Addr())}
	if !s.Loopback {
		o.Warnings = append(o.Warnings, fmt.Sprintf("The dashboard listens on %s, which is not the loopback interface: anyone who can reach it and has the token can read this memory.", s.addr))
	}
	s.site = newSite(o, token, s.addr)
	s.http = &http.Server{
		Handler: s.site.guard.wrap(s.site.mux),
		// A connection that says nothing, or idles, gives its place back soon.
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ConnContext:       withConn,
	}
	s.http.RegisterOnShutdown(s.site.live.stop)
	if err := atomicfile.WriteFile(AddrPath(o.Layout), []byte(s.addr+"\n"), 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("dashboard address: %w", err)
	}
	return s, nil
}

func bind(spec string, o Options) (net.Listener, error) {
	if spec != "" {
		if _, _, err := net.SplitHostPort(spec); err != nil {
			return nil, fmt.Errorf("--ui-addr %q: want host:port, such as 127.0.0.1:8080, or off", spec)
		}
		ln, err := net.Listen("tcp", spec)
		if err != nil {
			return nil, fmt.Errorf("dashboard: %w", err)
		}
		return ln, nil
	}
	var last error
	for _, port := range DefaultPorts(o.Layout, os.Getuid()) {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err == nil {
			return ln, nil
		}
		last = err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w (after %v)", err, last)
	}
	return ln, nil
}

func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// Addr is the bound host:port.
func (s *Server) Addr() string { return s.addr }

// URL is the dashboard's address with its token.
func (s *Server) URL() string { return urlOf(s.addr, s.token) }

// Serve answers until Close. The doctor's checks start at once, so the
// overview has them when it is first opened.
func (s *Server) Serve() error {
	//processglobal: the age of cached checks, on the wall clock
	s.site.health.get(time.Now(), healthEvery)
	err := s.http.Serve(s.ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops serving (pages under way get a few seconds to finish) and
// removes the address file.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if rmErr := Unserved(s.o.Layout); err == nil {
		err = rmErr
	}
	return err
}

// Unserved removes the address file of l's dashboard: the service calls
// it at start, before it knows whether it will serve one, as a file left
// by a service that was killed names a port anyone may hold by now, and
// `zylos-memory ui` would hand them the token.
func Unserved(l tiers.Layout) error {
	if err := os.Remove(AddrPath(l)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
