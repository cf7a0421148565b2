package dashboard

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// Files of the dashboard under memory/.state/: the token (a secret, mode
// 0600) and the address the running service bound (removed when it stops).
const (
	tokenName = "dashboard.token"
	addrName  = "dashboard.addr"
)

// Off is the --ui-addr value that turns the dashboard off.
const Off = "off"

// Default ports are drawn from [portBase, portBase+portSpan): below
// Linux's ephemeral range (32768 and up), so an outgoing connection seldom
// holds one, and above the ports services usually claim.
const (
	portBase  = 20000
	portSpan  = 12000
	portTries = 8
)

// TokenPath is where the token of a home lives.
func TokenPath(l tiers.Layout) string { return filepath.Join(l.StateDir(), tokenName) }

// AddrPath is where the running service writes the address it bound.
func AddrPath(l tiers.Layout) string { return filepath.Join(l.StateDir(), addrName) }

// DefaultPorts are the loopback ports tried in turn when --ui-addr is not
// given: derived from the home's path and the user's id, so two homes or
// two users on one machine do not reach for the same port, and stable
// across restarts, so a bookmark keeps working.
func DefaultPorts(l tiers.Layout, uid int) []int {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%d", filepath.Clean(l.ZylosDir), uid)
	first := int(h.Sum32() % portSpan)
	ports := make([]int, portTries)
	for i := range ports {
		ports[i] = portBase + (first+i*977)%portSpan
	}
	return ports
}

// loadToken reads the home's token, or makes one when there is none or
// the file is not a private, well-formed token.
func loadToken(l tiers.Layout) (string, error) {
	path := TokenPath(l)
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() && st.Mode().Perm() == 0o600 {
		if data, err := regfile.ReadFile(path); err == nil {
			if tok := strings.TrimSpace(string(data)); validToken(tok) {
				return tok, nil
			}
		}
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("dashboard token: %w", err)
	}
	tok := hex.EncodeToString(raw[:])
	if err := os.MkdirAll(l.StateDir(), 0o755); err != nil {
		return "", fmt.Errorf("dashboard token: %w", err)
	}
	// A file of another mode is replaced, not reused: its new copy is
	// created 0600 (atomicfile keeps an existing file's mode, so remove it).
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("dashboard token: %w", err)
	}
	if err := atomicfile.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("dashboard token: %w", err)
	}
	return tok, nil
}

func validToken(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// ErrNotServing reports a home whose service serves no dashboard.
var ErrNotServing = errors.New("the dashboard is not being served")

// URL is the address of the dashboard the running service of l serves,
// with its token, as `zylos-memory ui` prints it. It does not check that
// the service runs: the caller does (scheduler.Running).
func URL(l tiers.Layout) (string, error) {
	data, err := regfile.ReadFile(AddrPath(l))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s is missing (the service runs with --ui-addr=off, or has not bound yet)", ErrNotServing, AddrPath(l))
	}
	if err != nil {
		return "", fmt.Errorf("dashboard address: %w", err)
	}
	addr := strings.TrimSpace(string(data))
	tok, err := regfile.ReadFile(TokenPath(l))
	if err != nil {
		return "", fmt.Errorf("dashboard token: %w", err)
	}
	return urlOf(addr, strings.TrimSpace(string(tok))), nil
}

// urlOf is the URL of a dashboard bound to addr; one bound to every
// interface is reached on the loopback one.
func urlOf(addr, token string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
	}
	return "http://" + addr + "/?token=" + token
}
