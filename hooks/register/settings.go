package register

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// MalformedError reports a settings file that is not the JSON shape Claude
// Code reads. Hooks and MCP leave such a file untouched.
type MalformedError struct {
	Path string
	Err  error
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("%s is malformed, left untouched (fix it, then run init again): %v", e.Path, e.Err)
}

func (e *MalformedError) Unwrap() error { return e.Err }

// Registration is what Hooks or MCP did.
type Registration struct {
	Changed bool   // the settings file was written
	Backup  string // copy of the previous file, when there was one
}

// Hooks merges the entry points of events into the home's
// settings.local.json. The user's own hooks and every other key stay as
// they were, in their order; our entries are recognised by their command
// (`... zylos-memory ... hook <subcommand>`), so a re-run, or a run from a
// binary that moved, updates them in place instead of adding duplicates.
// The previous file is kept as settings.local.json.bak-<UTC time>.
//
// It approves the memory's MCP server (enabledMcpjsonServers; MCP
// puts it into .mcp.json), so a session does not stop at the prompt.
// It also sets ZYLOS_DIR to this home in the settings' "env", so the
// commands the agent runs (the memory skill's, the hooks' advice) find the
// home whose hooks gave them, and applies vars (a nil Value removes one).
func Hooks(l tiers.Layout, binary string, events []hooks.Event, now time.Time, vars ...EnvVar) (Registration, error) {
	env := []member{{"ZYLOS_DIR", marshal(l.ZylosDir)}}
	for _, v := range vars {
		var val json.RawMessage
		if v.Value != nil {
			val = marshal(*v.Value)
		}
		env = append(env, member{v.Key, val})
	}
	return rewriteJSON(l.SettingsFile(), now, func(old []byte) ([]byte, bool, error) {
		merged, changed, err := mergeSettings(old, entries(l, binary, events), env)
		if err != nil {
			return nil, false, err
		}
		approved, approvedNow, err := approveServer(merged, MCPServerName)
		return approved, changed || approvedNow, err
	})
}

// rewriteJSON applies merge to a JSON file of Claude Code's (nil data when
// it is missing) and writes the result atomically when merge changed
// something, keeping the previous file as <path>.bak-<UTC time>. A file
// merge cannot read is a *MalformedError and stays untouched; a file kept
// elsewhere through a link stays there.
func rewriteJSON(path string, now time.Time, merge func(old []byte) ([]byte, bool, error)) (Registration, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, perm, err := readSettings(path)
	if err != nil {
		return Registration{}, err
	}
	merged, changed, err := merge(old)
	if err != nil {
		return Registration{}, &MalformedError{Path: path, Err: err}
	}
	if !changed {
		return Registration{}, nil
	}
	reg := Registration{Changed: true}
	if old != nil {
		if reg.Backup, err = backup(path, old, perm, now); err != nil {
			return Registration{}, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Registration{}, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	atomicfile.Sweep(filepath.Dir(path))
	if err := atomicfile.WriteFile(path, merged, perm); err != nil {
		return Registration{}, fmt.Errorf("write %s: %w", path, err)
	}
	return reg, nil
}

// readSettings returns nil data for a missing file.
func readSettings(path string) ([]byte, fs.FileMode, error) {
	data, err := regfile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read settings: %w", err)
	}
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	return data, perm, nil
}

func backup(path string, data []byte, perm fs.FileMode, now time.Time) (string, error) {
	base := path + ".bak-" + now.UTC().Format("20060102T150405Z")
	for i := 0; ; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		err := atomicfile.CreateExclusive(name, data, perm)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("back up settings: %w", err)
		}
	}
}

// EnvVar is a variable init sets in the settings' "env"; a nil Value
// removes it.
type EnvVar struct {
	Key   string
	Value *string
}

// entry is one registered command, as Claude Code wants it.
type entry struct {
	event   hooks.Event
	command string
}

func entries(l tiers.Layout, binary string, events []hooks.Event) []entry {
	out := make([]entry, len(events))
	for i, ev := range events {
		out[i] = entry{ev, hooks.Command(binary, l.ZylosDir, ev)}
	}
	return out
}

// isOwn tells whether a registered command is our entry point for ev,
// wherever the binary lives now and whatever it is called: it ends in
// `hook <subcommand>` and names the binary or passes our --zylos-dir.
func isOwn(command string, ev hooks.Event) bool {
	return strings.HasSuffix(strings.TrimSpace(command), " hook "+ev.Command) &&
		(strings.Contains(command, "zylos-memory") || strings.Contains(command, " --zylos-dir "))
}

// marshal encodes without HTML escaping: commands hold `&&` and `>`.
func marshal(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // only called on strings, numbers and our own objects
	return bytes.TrimRight(buf.Bytes(), "\n")
}
