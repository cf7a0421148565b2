package records

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// StagingDir is where the plugin's skill keeps drafts and inputs.
const StagingDir = ".staging"

// maxInput bounds an input file: records are a few KB.
const maxInput = 1 << 20

// pendingPrefix names the /tmp input files of the claude-memory plugin.
const pendingPrefix = ".memory-write-pending"

// CheckInputPath accepts only /tmp/.memory-write-pending*.json and files
// under <root>/.staging/, with no ".." and no symlink leading elsewhere.
// It returns the resolved path.
func CheckInputPath(p, root string) (string, error) {
	refuse := func(why string) (string, error) {
		return "", newError(ErrSecurity, "input", p, "error", why,
			"fix", "Write the input to /tmp/"+pendingPrefix+"*.json or "+filepath.Join(root, StagingDir)+"/")
	}
	if p == "" {
		return refuse("--input is required for create and update")
	}
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return refuse("path contains '..'")
		}
	}
	// Where the path points is checked before whether it exists, so a
	// path outside the allowed places is a SECURITY_ERROR either way.
	abs := inputAbs(p, root)
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if dir, derr := filepath.EvalSymlinks(filepath.Dir(abs)); derr == nil {
			abs = filepath.Join(dir, filepath.Base(abs))
		}
		if !allowedInput(abs, root) {
			return refuse(notAllowed)
		}
		return "", newError(ErrInput, "input", p, "error", "cannot read input file", "fix", "Write the input file first")
	}
	if allowedInput(real, root) {
		return real, nil
	}
	return refuse(notAllowed)
}

const notAllowed = "input files are accepted only from /tmp/" + pendingPrefix + "*.json and " + StagingDir + "/"

func allowedInput(real, root string) bool { return inPendingDir(real) || inStaging(real, root) }

// inputAbs reads a relative input path from the working directory, or
// from Base(root) when it is not there, the way targets are read (so
// the draft_path that draft prints works from any directory).
func inputAbs(p, root string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		if _, err := os.Stat(abs); err == nil {
			return abs
		}
	}
	return filepath.Join(Base(root), p)
}

func inPendingDir(real string) bool {
	tmp, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		tmp = os.TempDir()
	}
	name := filepath.Base(real)
	return (filepath.Dir(real) == tmp || filepath.Dir(real) == "/tmp") &&
		strings.HasPrefix(name, pendingPrefix) && strings.HasSuffix(name, ".json")
}

func inStaging(real, root string) bool {
	staging := filepath.Join(root, StagingDir)
	if r, err := filepath.EvalSymlinks(staging); err == nil {
		staging = r
	}
	return within(staging, real)
}

// ReadInput reads the input file p of a create or an update (see
// CheckInputPath): a JSON object of at most maxInput bytes. Its mistakes
// are SECURITY_ERROR and INPUT_ERROR blocks.
func ReadInput(p, root string) (*Input, error) {
	real, err := CheckInputPath(p, root)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(real); err == nil && fi.Size() > maxInput {
		return nil, newError(ErrInput, "input", p, "error", fmt.Sprintf("larger than %d bytes", maxInput),
			"fix", "A record is a few KB; write only the record")
	}
	data, err := regfile.ReadFile(real)
	if err != nil {
		return nil, newError(ErrInput, "input", p, "error", err.Error(), "fix", "Write the input file first")
	}
	d, err := decodeDoc(data)
	if err != nil {
		return nil, newError(ErrInput, "input", p, "error", "invalid JSON: "+err.Error(),
			"fix", "Write one well-formed JSON object")
	}
	return &Input{doc: d, file: p}, nil
}

// nullableFields are the optional fields the plugin's model types as
// Optional (and the schema allows as null): null reads as not given, in an
// input as in a stored record.
var nullableFields = []string{"related_files", "confidence", "changes",
	"retired_at", "retired_reason", "archived_at", "archived_reason"}

func dropNullOptionals(d doc) {
	for _, k := range nullableFields {
		if v, ok := d[k]; ok && v == nil {
			delete(d, k)
		}
	}
}

// removePending deletes a consumed /tmp input file, as the plugin does;
// staging files are left for the caller's own cleanup.
func removePending(p string) {
	if p == "" {
		return
	}
	if real, err := filepath.EvalSymlinks(p); err == nil && inPendingDir(real) {
		os.Remove(real)
	}
}
