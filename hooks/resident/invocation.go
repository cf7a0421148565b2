package resident

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// invocation is a hook, or one of the commands, as its process would
// have run it.
type invocation struct {
	event    hooks.Event
	command  string // one of commands (its canonical name), "" for a hook
	deadline time.Duration
	started  int64 // request.started
	env      hooks.Env
	// lookupEnv reads the environment the process was started with.
	lookupEnv func(string) (string, bool)
}

// resolve is what the process of r would run, as cmd/zylos-memory
// resolves it, or an error when the service cannot answer for it exactly.
func (s *Server) resolve(r request) (invocation, error) {
	if r.identity != s.identity {
		return invocation{}, errors.New("another build of zylos-memory")
	}
	var inv invocation
	dir, command, ok := parseCommand(r.args[1:])
	if ok {
		// A command is answered before it is accepted, well within
		// the client's wait for the accept.
		inv.command, inv.deadline = command, acceptWaitMS*time.Millisecond
	} else {
		var err error
		if dir, command, inv.deadline, err = parseArgs(r.args[1:]); err != nil {
			return invocation{}, err
		}
		if inv.event, ok = hooks.EventByCommand(command); !ok || !slices.Contains(served, command) {
			return invocation{}, fmt.Errorf("hook %q is not served", command)
		}
	}
	if dir == "" {
		if dir = tiers.ZylosDir(r.lookupEnv); dir == "" {
			return invocation{}, errors.New("ZYLOS_DIR is empty")
		}
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(workingDir(r), dir)
	}
	if filepath.Clean(dir) != s.layout.ZylosDir {
		return invocation{}, fmt.Errorf("home %s is not the service's", dir)
	}
	tz, hasTZ := r.lookupEnv("TZ")
	//processglobal: the service's own TZ, which set its time.Local
	ownTZ, hasOwnTZ := os.LookupEnv("TZ")
	if tz != ownTZ || hasTZ != hasOwnTZ {
		return invocation{}, fmt.Errorf("timezone %q is not the service's", tz)
	}
	// The umask is the process's, for every file it creates: the
	// service cannot take the hook's for one answer.
	if r.umask != s.umask {
		return invocation{}, fmt.Errorf("umask %03o is not the service's %03o", r.umask, s.umask)
	}
	if _, ok := r.lookupEnv(crashpoint.Env); ok {
		return invocation{}, errors.New("a crash point is set")
	}
	now, err := tiers.Clock(r.lookupEnv)
	if err != nil {
		return invocation{}, err
	}
	if err := s.layout.CheckConfined(); err != nil {
		return invocation{}, err
	}
	// The layout of a home without memory files is the hook's setting.
	layout := s.layout
	layout.LayoutEnv, _ = r.lookupEnv(tiers.LayoutVar)
	if _, err := layout.Setting(); err != nil {
		return invocation{}, err
	}
	// The answer names the binary (in the commands it advises) and may
	// start it (a background reindex): the service's own, never one a
	// request names. A client of the same build by another path would
	// name its own path; it answers itself. Both read /proc/self/exe,
	// where the kernel names the file by its resolved path.
	if strings.TrimSuffix(r.exe, " (deleted)") != s.binary {
		return invocation{}, fmt.Errorf("binary %s is not the service's %s", r.exe, s.binary)
	}
	inv.started, inv.lookupEnv = r.started, r.lookupEnv
	inv.env = hooks.Env{Layout: layout, Now: now, Binary: s.binary, Getenv: r.getenv, Cwd: workingDir(r), Environ: r.env}
	return inv, nil
}

// umaskOf is the umask in a process's status file (/proc/PID/status),
// read where reading it changes nothing (setting it back would leave a
// window in which the service's other goroutines create files under
// another).
func umaskOf(status string) (int64, error) {
	data, err := regfile.ReadFile(status)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 8, 64)
		}
	}
	return 0, errors.New("no umask in /proc/self/status")
}

// parseArgs reads `[--zylos-dir DIR] hook COMMAND [--timeout D]`, each
// flag in the forms Go's flag package takes; any other command line is
// left to the process, whose parser has the last word.
func parseArgs(args []string) (dir, command string, deadline time.Duration, err error) {
	deadline = hooks.DefaultDeadline
	global := true
	for i := 0; i < len(args); i++ {
		name, value, hasValue := flagOf(args[i])
		switch {
		case global && args[i] == "hook" && i+1 < len(args):
			command, global = args[i+1], false
			i++
			continue
		case name == "":
			return "", "", 0, fmt.Errorf("argument %q", args[i])
		case !hasValue && i+1 < len(args):
			i++
			value = args[i]
		case !hasValue:
			return "", "", 0, fmt.Errorf("flag %q without a value", args[i])
		}
		switch {
		case global && name == "zylos-dir" && value != "":
			dir = value
		case !global && name == "timeout":
			d, perr := time.ParseDuration(value)
			if perr != nil {
				return "", "", 0, perr
			}
			if d > maxDeadline {
				return "", "", 0, fmt.Errorf("--timeout %v over %v", d, maxDeadline)
			}
			if d > 0 {
				deadline = d
			}
		default:
			return "", "", 0, fmt.Errorf("flag %q", args[i])
		}
	}
	if command == "" {
		return "", "", 0, errors.New("not a hook")
	}
	return dir, command, deadline, nil
}

// parseCommand reads `[--zylos-dir DIR] WORDS...` where the words are one
// of commands, whole; command is its canonical name (an alias of inject
// is inject).
func parseCommand(args []string) (dir, command string, ok bool) {
	i := 0
	for ; i < len(args); i++ {
		name, value, hasValue := flagOf(args[i])
		if name == "" {
			break
		}
		if name != "zylos-dir" {
			return "", "", false
		}
		if !hasValue {
			if i+1 >= len(args) {
				return "", "", false
			}
			i++
			value = args[i]
		}
		if value == "" {
			return "", "", false
		}
		dir = value
	}
	command = strings.Join(args[i:], " ")
	if !slices.Contains(commands, command) {
		return "", "", false
	}
	if command == "session-start-inject" {
		command = "inject"
	}
	return dir, command, true
}

// flagOf splits "-name", "--name" or "--name=value"; name is "" when arg
// is not a flag.
func flagOf(arg string) (name, value string, hasValue bool) {
	switch {
	case len(arg) > 2 && arg[:2] == "--":
		arg = arg[2:]
	case len(arg) > 1 && arg[0] == '-' && arg != "--":
		arg = arg[1:]
	default:
		return "", "", false
	}
	if arg[0] == '-' || arg[0] == '=' {
		return "", "", false
	}
	for i := range len(arg) {
		if arg[i] == '=' {
			return arg[:i], arg[i+1:], true
		}
	}
	return arg, "", false
}

// workingDir is the process's os.Getwd: $PWD when it names the working
// directory, as a path through a symlink may.
func workingDir(r request) string {
	pwd := r.getenv("PWD")
	if filepath.IsAbs(pwd) {
		a, errA := os.Stat(pwd)
		b, errB := os.Stat(r.cwd)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return pwd
		}
	}
	return r.cwd
}
