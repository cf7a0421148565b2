package resident

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/tiers"
)

// maxAnswering bounds the hooks answered at once; a hook past it waits
// for a turn. Under a storm of prompts, queueing beats declining by far: a
// hook the service answers costs its process a few system calls, one that
// answers itself a Go program's start, which takes the CPU the service
// needs, so that more are declined (200 prompts at once: none unanswered
// queued, a third to a half unanswered when declined after 350 ms).
const maxAnswering = 16

// The wait for a turn comes out of the hook's deadline, up to three
// quarters of it and never past maxTurnWait; past that the hook is
// declined and answers itself. lateAccept is how long after a client
// started waiting its accept may still be sent, before the client gives up
// waiting (ZM_ACCEPT_WAIT_MS) and answers itself.
const (
	maxTurnWait = 700 * time.Millisecond
	lateAccept  = acceptWaitMS*time.Millisecond - 150*time.Millisecond
)

// maxDeadline bounds the --timeout the service answers under: the client
// waits no longer (ZM_MAX_DEADLINE_MS); a longer one is left to the process.
const maxDeadline = maxDeadlineMS * time.Millisecond

// Server answers the hooks of one home on its socket.
type Server struct {
	layout   tiers.Layout
	identity string
	binary   string // the service's own executable, the only one it runs
	umask    int64  // the service's, which its answers create files under
	path     string
	ln       *net.UnixListener
	log      *slog.Logger
	slots    chan struct{}

	mu     sync.Mutex // guards closed and the adds to wg
	closed bool
	wg     sync.WaitGroup
}

// SocketPath is where the service of a home listens.
func SocketPath(l tiers.Layout) string { return filepath.Join(l.StateDir(), socketName) }

// Listen binds the socket of the home l (an absolute, confined home). The
// caller holds the scheduler's lock, so a socket found there was left by
// a service that died, and is replaced.
func Listen(l tiers.Layout, log *slog.Logger) (*Server, error) {
	identity, err := binaryIdentity("/proc/self/exe")
	if err != nil {
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	binary, err := hooks.Executable()
	if err != nil {
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	umask, err := umaskOf("/proc/self/status")
	if err != nil {
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	path := SocketPath(l)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	// As client.c connects: through the directory's descriptor.
	var ln *net.UnixListener
	err = throughDir(l.StateDir(), func(name string) (err error) {
		ln, err = net.ListenUnix("unix", &net.UnixAddr{Net: "unix", Name: name})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("hook socket %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false) // the name it was bound by died with the descriptor
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		os.Remove(path)
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	return &Server{layout: l, identity: identity, binary: binary, umask: umask, path: path, ln: ln, log: log, slots: make(chan struct{}, maxAnswering)}, nil
}

// Serve answers until Close.
func (s *Server) Serve() {
	for {
		conn, err := s.ln.AcceptUnix()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			s.log.Warn("hook socket", "err", err)
			time.Sleep(10 * time.Millisecond) // out of descriptors: let answers finish
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			conn.Close()
			return
		}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.handle(conn)
		}()
	}
}

// Close stops listening, removes the socket and waits for the answers
// under way, each bounded by its hook's deadline.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	err := s.ln.Close()
	if rmErr := os.Remove(s.path); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) && err == nil {
		err = rmErr
	}
	s.wg.Wait()
	return err
}

func (s *Server) handle(conn *net.UnixConn) {
	defer conn.Close()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("hook socket: internal error", "panic", r)
		}
	}()
	//processglobal: a deadline on the wall clock
	arrived := time.Now()
	conn.SetDeadline(arrived.Add(acceptWaitMS * time.Millisecond))
	inv, release, err := s.admit(conn, arrived)
	if err != nil {
		s.log.Debug("hook left to its process", "err", err)
		conn.Write([]byte{decline})
		return
	}
	if inv.command != "" {
		s.answerCommand(conn, inv, release)
		return
	}
	head := []byte{accept, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(head[1:], uint32(inv.deadline.Milliseconds()))
	if _, err := conn.Write(head); err != nil {
		release()
		return
	}
	// From here the hook's own deadline bounds the answer; the stdin the
	// client relays is the hook's.
	conn.SetDeadline(time.Time{})
	var stdout, stderr bytes.Buffer
	code := hooks.Run(context.Background(), inv.event, hooks.Options{
		Env: inv.env, Deadline: inv.deadline, Stdin: conn, Stdout: &stdout, Stderr: &stderr, Finished: release,
	})
	//processglobal: a deadline on the wall clock
	conn.SetWriteDeadline(time.Now().Add(acceptWaitMS * time.Millisecond))
	conn.Write(answerBytes(code, stdout.Bytes(), stderr.Bytes()))
}

// admit reads and resolves a request and takes a turn for it, or says why
// the process must answer itself. The turn is held until release, which
// the entry point calls when it returns: that may be after its answer was
// sent at the deadline. The invocation's deadline counts from the
// request's arrival, as it counts from the start of the entry point in
// the hook's own process, and the accept is sent only while the client,
// by its own clock, still waits for it.
func (s *Server) admit(conn *net.UnixConn, arrived time.Time) (inv invocation, release func(), err error) {
	if inv, err = s.receive(conn); err != nil {
		return inv, nil, err
	}
	if err := s.takeTurn(min(inv.deadline*3/4, maxTurnWait)); err != nil {
		return inv, nil, err
	}
	var once sync.Once
	release = func() { once.Do(func() { <-s.slots }) }
	waited := sinceStarted(inv.started)
	if inv.deadline -= time.Since(arrived); waited < 0 || waited > lateAccept || inv.deadline <= 0 {
		release()
		return inv, nil, errors.New("too late to accept")
	}
	return inv, release, nil
}

// takeTurn waits up to wait for one of the maxAnswering turns.
func (s *Server) takeTurn(wait time.Duration) error {
	turn := time.NewTimer(wait)
	defer turn.Stop()
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-turn.C:
		return errors.New("busy")
	}
}

// receive reads the request and resolves it, or says why the process
// must answer itself.
func (s *Server) receive(conn *net.UnixConn) (invocation, error) {
	if err := samePeer(conn); err != nil {
		return invocation{}, err
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		return invocation{}, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > maxRequest {
		return invocation{}, fmt.Errorf("request of %d bytes", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(conn, body); err != nil {
		return invocation{}, err
	}
	r, err := parseRequest(body)
	if err != nil {
		return invocation{}, err
	}
	return s.resolve(r)
}

func answerBytes(code int, stdout, stderr []byte) []byte {
	out := make([]byte, 0, 13+len(stdout)+len(stderr))
	out = append(out, answer)
	out = binary.BigEndian.AppendUint32(out, uint32(code))
	out = binary.BigEndian.AppendUint32(out, uint32(len(stdout)))
	out = append(out, stdout...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(stderr)))
	return append(out, stderr...)
}

// samePeer refuses a client of another user.
func samePeer(conn *net.UnixConn) error {
	cred, err := peerCred(conn)
	if err != nil {
		return err
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("client of uid %d", cred.Uid)
	}
	return nil
}

// peerCred is the process at the other end of conn.
func peerCred(conn *net.UnixConn) (*syscall.Ucred, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, credErr
}

// binaryIdentity names a binary's file as client.c does: a binary
// replaced on disk, by an upgrade say, is another build.
func binaryIdentity(path string) (string, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d:%d:%d:%d.%09d", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec), nil
}
