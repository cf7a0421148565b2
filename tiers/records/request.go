package records

import (
	"fmt"
	"path/filepath"
	"time"
)

// Action is what a write does to its record.
type Action string

// The actions of a write. ActionDelete is ActionRetire in the claude-memory
// plugin's older spelling, answered in that spelling (DELETE_ERROR).
const (
	ActionCreate    Action = "create"
	ActionUpdate    Action = "update"
	ActionRetire    Action = "retire"
	ActionDelete    Action = "delete"
	ActionArchive   Action = "archive"
	ActionUnarchive Action = "unarchive"
	ActionRestore   Action = "restore"
)

// Actions lists the accepted --action values.
var Actions = []string{"create", "update", "retire", "delete", "archive", "unarchive", "restore"}

// ParseAction reads an --action value; false when it is none of Actions.
func ParseAction(s string) (Action, bool) {
	for _, a := range Actions {
		if a == s {
			return Action(s), true
		}
	}
	return "", false
}

// TakesInput reports whether the action writes a document the caller
// gives (create, update); the others are status moves.
func (a Action) TakesInput() bool { return a == ActionCreate || a == ActionUpdate }

// A WriteRequest is one records write, its flags already read: the
// action, the record it is aimed at, the document of a create or an
// update, and the hash the caller read the record with.
type WriteRequest struct {
	Action Action
	Target Target
	Input  *Input // create and update only
	// Hash is the MD5 of the record as the caller read it: the write is
	// refused when the record changed since (optimistic concurrency).
	// "" checks nothing (an update warns so).
	Hash   string
	Reason string // of a retire or an archive
	// KeepID keeps the record's id (and file) through a retitle.
	KeepID bool
	Now    time.Time
	Warn   func(Warning) // nil drops them
	// View, when set, is kept in step with the write under the lock.
	View View
	// FromTeam names the home a team exchange applies this change from;
	// "" for every other write. Only such a write sets or changes the
	// record's team origin and conflict: any other keeps the stored ones
	// whatever its input says, and resolves the conflict (drops it, and
	// logs it) when it changes the record's title, tags, content or
	// status. The private mark is any write's to set or clear.
	FromTeam string
}

// Target is the record file a write is aimed at, resolved inside its
// records root.
type Target struct {
	root     string // absolute records root
	abs      string
	category string
	shown    string // as shown in answers and the index
}

// ResolveTarget resolves path (relative to cwd, or to the root's Base)
// to a record file directly inside a category folder of root, the
// category given (when not "") agreeing with the folder's. A create
// needs the category given. The refusals are PATH_ERROR and INPUT_ERROR
// blocks.
func ResolveTarget(root, cwd, path string, action Action, category string) (Target, error) {
	pathErr := func(why string) error {
		return newError(ErrPath, "target", path, "error", why,
			"fix", "Use a path <root>/<category folder>/<slug>.json inside the records root "+root)
	}
	if path == "" {
		return Target{}, pathErr("--target is required")
	}
	abs, err := Locate(root, cwd, path)
	if err != nil {
		return Target{}, pathErr(err.Error())
	}
	if filepath.Ext(abs) != ".json" {
		return Target{}, pathErr("not a .json file")
	}
	dir := filepath.Dir(abs)
	cat := CategoryOfFolder(filepath.Base(dir))
	if cat == "" || filepath.Dir(dir) != root {
		return Target{}, pathErr("not directly inside a category folder")
	}
	if category != "" && category != cat {
		return Target{}, pathErr(fmt.Sprintf("folder %s holds %s records, not %s", filepath.Base(dir), cat, category))
	}
	if action == ActionCreate && category == "" {
		return Target{}, newError(ErrInput, "field", "--category", "error", "--category is required for create",
			"fix", "Add --category "+cat)
	}
	return targetAt(root, abs, cat), nil
}

// targetAt is the record file abs of category in root, known to be one.
func targetAt(root, abs, category string) Target {
	return Target{root: root, abs: abs, category: category, shown: IndexPath(root, abs)}
}

// Input is the document of a create or an update: read from the plugin's
// input file (ReadInput), or given by a caller inside the binary
// (InputOf). A write fills it in.
type Input struct {
	doc  doc
	file string // the input file read; a consumed /tmp one is removed after the write
}

// InputOf is the document d as a write's input; the write fills d in.
func InputOf(d map[string]any) *Input { return &Input{doc: doc(d)} }

// Root is the records root the target was resolved in.
func (t Target) Root() string { return t.root }
