package guard

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/realpath"
	"github.com/zylos/zylos-memory/tiers/records"
)

// Options is what the guard and the check know besides the tool call.
type Options struct {
	Root    string // the default records root (normally $ZYLOS_DIR/memory/records)
	Home    string // for "~/" in a tool's path
	TempDir string // where the claude-memory plugin's staging files live; "" means /tmp
	Command string // how the agent runs this binary for this home; "" means zylos-memory
	// Cwd is the hook's working directory, for a tool input that names
	// none; Getenv reads the hook's environment, for $VARS in a command.
	// Both are the hook process's, which the memory service answering
	// for it does not share.
	Cwd    string
	Getenv func(string) string
}

func (o Options) getenv(key string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(key)
}

func (o Options) command() string {
	if o.Command == "" {
		return "zylos-memory"
	}
	return o.Command
}

// Class is where a tool's target path falls.
type Class int

const (
	Outside   Class = iota // not in any records root: none of our business
	Staging                // an input file the agent is meant to write
	Protected              // inside a records root: only records write may touch it
)

// Target is a classified tool path.
type Target struct {
	Path  string // absolute, symlinks resolved as far as the path exists
	Root  string // the records root it lies in, for Staging/Protected under a root
	Rel   string // Path relative to Root, slash-separated
	Class Class
}

// pendingNames are the claude-memory plugin's staging files, allowed in the temp dir only.
var pendingNames = []struct{ prefix, suffix string }{
	{".memory-write-pending", ".json"},
	{".memory-draft-", ".json"},
	{".memory-triage-context-", ".txt"},
}

// FilePath is the path a Write, Edit, MultiEdit or NotebookEdit call
// targets, or "".
func FilePath(toolInput json.RawMessage) string {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if json.Unmarshal(toolInput, &in) != nil {
		return ""
	}
	if in.FilePath != "" {
		return in.FilePath
	}
	return in.NotebookPath
}

// Classify resolves path (relative to cwd, "~" to Home, ".." folded,
// symlinks followed as far as they exist) and says whether it lies in a
// records root: the default one or any .claude/memory directory. Both the
// path as written and the path resolved are checked, so neither a link
// into the root nor a link out of a lexical root hides a write.
func Classify(path, cwd string, opts Options) Target {
	if path == "" {
		return Target{Class: Outside}
	}
	if cwd == "" {
		cwd = opts.Cwd
	}
	lexical := absolute(path, cwd, opts.Home)
	real := realpath.Resolve(lexical)
	if isPending(real, opts.TempDir) {
		return Target{Path: real, Class: Staging}
	}
	for _, p := range []string{real, lexical} {
		for _, root := range roots(p, opts.Root) {
			if rel, ok := inside(root, p); ok {
				return Target{Path: real, Root: root, Rel: rel, Class: classOf(rel)}
			}
		}
	}
	return Target{Path: real, Class: Outside}
}

// classOf sorts a path inside a root: <root>/.staging/ holds the agent's
// input files (the plugin's skill) and memory-config.json is the user's to edit;
// everything else is records, index and locks.
func classOf(rel string) Class {
	if strings.HasPrefix(rel, ".staging/") || rel == records.ConfigFile {
		return Staging
	}
	return Protected
}

func absolute(path, cwd, home string) string {
	if home != "" && (path == "~" || strings.HasPrefix(path, "~/")) {
		path = filepath.Join(home, path[1:])
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join("/", cwd, path) // no cwd known: the root, never this process's
	}
	return filepath.Clean(path)
}

func isPending(p, tempDir string) bool {
	if tempDir == "" {
		tempDir = "/tmp"
	}
	if filepath.Dir(p) != realpath.Resolve(tempDir) {
		return false
	}
	name := filepath.Base(p)
	for _, n := range pendingNames {
		if strings.HasPrefix(name, n.prefix) && strings.HasSuffix(name, n.suffix) {
			return true
		}
	}
	return false
}

// roots lists the records roots p could be under: the default root (as
// given and resolved) and the .claude/memory directory p names, if any.
func roots(p, def string) []string {
	var out []string
	if def != "" {
		out = append(out, filepath.Clean(def), realpath.Resolve(filepath.Clean(def)))
	}
	if marked, err := records.ResolveRoot("", p, ""); err == nil && marked != p {
		out = append(out, marked)
	}
	return out
}

// inside reports whether p is root or below it, with the relative path.
func inside(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
