package resident

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"path/filepath"

	"github.com/zylos/zylos-memory/hooks"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/home"
)

// answerCommand answers one of commands: it runs it first, and accepts
// only with its whole answer at hand; anything it cannot answer exactly
// as the process (an error, whose words are the process's to say, a C4
// database the process would create) is declined, and the process runs
// the command itself. A command reads no stdin.
func (s *Server) answerCommand(conn *net.UnixConn, inv invocation, release func()) {
	out, err := runCommand(inv.command, inv.env, inv.lookupEnv)
	release()
	if err == nil && len(out) > maxAnswer-16 {
		err = fmt.Errorf("an answer of %d bytes", len(out))
	}
	if err != nil {
		s.log.Debug("command left to its process", "command", inv.command, "err", err)
		conn.Write([]byte{decline})
		return
	}
	msg := []byte{accept, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(msg[1:], uint32(inv.deadline.Milliseconds()))
	conn.Write(append(msg, answerBytes(0, out, nil)...))
}

// runCommand is the stdout of a command run by its process with env:
// inject, or c4 session-init (their default forms, as zylos's session
// start runs them).
func runCommand(command string, env hooks.Env, lookupEnv func(string) (string, bool)) ([]byte, error) {
	var out bytes.Buffer
	h := home.Of(env.Layout, home.Options{LookupEnv: lookupEnv, Cwd: env.Cwd, Environ: env.Environ, Now: env.Now})
	switch command {
	case "inject":
		if err := tiers.WriteInject(&out, h.Layout, ""); err != nil {
			return nil, err
		}
	case "c4 session-init":
		text, err := sessionInit(h)
		if err != nil {
			return nil, err
		}
		out.WriteString(text)
	default:
		return nil, fmt.Errorf("command %q is not served", command)
	}
	return out.Bytes(), nil
}

// sessionInit is what `c4 session-init` prints for a home whose C4
// database exists (the process creates a missing one, and says so).
func sessionInit(h *home.Home) (string, error) {
	// Only a plain count is taken here: any other value is the process's
	// flag parser's to read, and the process answers it.
	if err := h.Settings.ThresholdErr; err != nil {
		return "", err
	}
	db, err := c4sync.Open(h.Layout.C4DB())
	if err != nil {
		return "", err
	}
	defer db.Close()
	s, err := db.SessionInit(h.Kind, h.Settings.SyncThreshold, filepath.Join(h.Layout.ClaudeDir(), "skills"))
	return s.String(), err
}
