package dashboard

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// The dashboard's share of the service's open files: at most maxConns
// connections at once, at most maxConnsPerPeer of one peer address. The
// hooks are the service's first job, so clients without the token,
// however many, never take the descriptors the hook socket needs.
const (
	maxConns        = 128
	maxConnsPerPeer = 96
)

// capListener admits connections within the caps and counts them until
// they close. At a cap, a new connection takes the place of the oldest
// one that has not yet shown the dashboard's cookie (a client without the
// token cannot hold the owner out by holding connections open); when every
// place is held by the owner's browser, the new one is closed at once.
type capListener struct {
	net.Listener
	maxTotal, maxPeer int

	mu      sync.Mutex
	total   int
	perPeer map[string]int
	seq     uint64
	// unproven are the admitted connections that have not shown the cookie.
	unproven map[*cappedConn]bool
}

func newCapListener(ln net.Listener, maxTotal, maxPeer int) *capListener {
	return &capListener{Listener: ln, maxTotal: maxTotal, maxPeer: maxPeer, perPeer: map[string]int{}, unproven: map[*cappedConn]bool{}}
}

// Accept returns the next connection within the caps.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		cc := &cappedConn{Conn: c, l: l, peer: peerOf(c.RemoteAddr())}
		admitted, evicted := l.admit(cc)
		if evicted != nil {
			evicted.drop()
		}
		if admitted {
			return cc, nil
		}
		dropTCP(c)
	}
}

// admit counts cc in, making room by evicting the oldest unproven
// connection (of cc's peer when the peer's cap is the one reached).
func (l *capListener) admit(cc *cappedConn) (bool, *cappedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var evicted *cappedConn
	if l.total >= l.maxTotal || l.perPeer[cc.peer] >= l.maxPeer {
		samePeer := l.total < l.maxTotal
		for c := range l.unproven {
			if (!samePeer || c.peer == cc.peer) && (evicted == nil || c.seq < evicted.seq) {
				evicted = c
			}
		}
		if evicted == nil {
			return false, nil
		}
		l.forgetLocked(evicted)
	}
	l.seq++
	cc.seq = l.seq
	l.total++
	l.perPeer[cc.peer]++
	l.unproven[cc] = true
	return true, evicted
}

// forgetLocked gives c's place back, once.
func (l *capListener) forgetLocked(c *cappedConn) {
	if c.released {
		return
	}
	c.released = true
	delete(l.unproven, c)
	l.total--
	if l.perPeer[c.peer]--; l.perPeer[c.peer] <= 0 {
		delete(l.perPeer, c.peer)
	}
}

// open is how many admitted connections are open.
func (l *capListener) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// peerOf is the address a connection comes from, without its port.
func peerOf(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// dropTCP frees a refused TCP connection at once, with no TIME_WAIT kept.
func dropTCP(c net.Conn) {
	if tcp, ok := c.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
	c.Close()
}

// cappedConn is an admitted connection; its fields but Conn are guarded
// by its listener's mu.
type cappedConn struct {
	net.Conn
	l        *capListener
	peer     string
	seq      uint64
	released bool
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	c.l.forgetLocked(c)
	c.l.mu.Unlock()
	return err
}

// drop closes an evicted connection (its place is already given back).
func (c *cappedConn) drop() { dropTCP(c.Conn) }

// prove marks the connection as the owner's: it is never evicted.
func (c *cappedConn) prove() {
	c.l.mu.Lock()
	delete(c.l.unproven, c)
	c.l.mu.Unlock()
}

// connKey carries a request's connection in its context.
type connKey struct{}

// withConn is the http.Server's ConnContext: it lets the guard mark the
// connection of a request that showed the cookie.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// proveConn marks the connection of r as the owner's, when it is capped.
func proveConn(r *http.Request) {
	if cc, ok := r.Context().Value(connKey{}).(*cappedConn); ok {
		cc.prove()
	}
}
