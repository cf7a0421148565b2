package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/records"
)

// maxRecordBytes bounds how much of a written file the check reads; a
// record is a few KB, anything bigger is invalid.
const maxRecordBytes = 1 << 20

// PostToolUse is Claude Code's answer shape for a PostToolUse hook that
// sends feedback to the agent.
type PostToolUse struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// Report is the outcome of checking a written file.
type Report struct {
	Warning     string       // for stderr; "" when the file is not ours
	Answer      *PostToolUse // for stdout; nil when the file is valid
	Quarantined string       // where an invalid file was moved, if it was
}

// Check inspects a file a Write/Edit just wrote. Outside the records root,
// staging and config files are none of its business. A record that got
// past the guard is validated against its category's schema; an invalid
// one is renamed to <path>.invalid.<unix-seconds> (kept as evidence,
// never deleted) and the agent is told to redo it with records write.
func Check(path, cwd string, now time.Time, opts Options) Report {
	t := Classify(path, cwd, opts)
	if t.Class != Protected {
		return Report{}
	}
	rep := Report{Warning: fmt.Sprintf("WARNING: %s was written directly, bypassing the memory write guard", t.Path)}
	if !strings.HasSuffix(t.Path, ".json") {
		rep.Answer = block(fmt.Sprintf("%s is not a JSON record: only `zylos-memory records write` may write "+
			"in the memory records directory. Remove it and save through records write.", t.Path))
		return rep
	}
	err := validateFile(t)
	if err == nil {
		return rep
	}
	moved, qerr := quarantine(t.Path, now)
	if qerr != nil {
		rep.Warning += fmt.Sprintf("\nWARNING: could not quarantine %s: %v", t.Path, qerr)
		moved = t.Path
	}
	rep.Quarantined = moved
	rep.Answer = block(fmt.Sprintf("Invalid memory record %s (moved to %s): %s. "+
		"Write records only with `zylos-memory records write`.", t.Path, moved, oneLine(err)))
	return rep
}

func block(reason string) *PostToolUse { return &PostToolUse{Decision: "block", Reason: reason} }

// validateFile checks the record at t against the schema of the category
// its folder names, else the category it claims.
func validateFile(t Target) error {
	data, err := readBounded(t.Path)
	if err != nil {
		return err
	}
	folder, _, _ := strings.Cut(t.Rel, "/")
	category := records.CategoryOfFolder(folder)
	if category == "" {
		var claim struct {
			Category string `json:"category"`
		}
		if json.Unmarshal(data, &claim) != nil || !records.ValidCategory(claim.Category) {
			return errors.New("cannot tell the record's category from its folder or its category field")
		}
		category = claim.Category
	}
	return records.Validate(category, data)
}

func readBounded(path string) ([]byte, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read record: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read record: %w", err)
	}
	if len(data) > maxRecordBytes {
		return nil, fmt.Errorf("record over %d bytes", maxRecordBytes)
	}
	return data, nil
}

// quarantine renames path to <path>.invalid.<unix>, adding .N when that
// name is taken, so no earlier evidence is overwritten.
func quarantine(path string, now time.Time) (string, error) {
	base := path + ".invalid." + strconv.FormatInt(now.Unix(), 10)
	dest := base
	for n := 1; ; n++ {
		if _, err := os.Lstat(dest); errors.Is(err, os.ErrNotExist) {
			break
		}
		if n > 100 {
			return "", fmt.Errorf("quarantine %s: too many earlier copies", path)
		}
		dest = base + "." + strconv.Itoa(n)
	}
	if err := os.Rename(path, dest); err != nil {
		return "", fmt.Errorf("quarantine: %w", err)
	}
	return dest, atomicfile.SyncDir(filepath.Dir(dest))
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// CheckChanged validates every record file under root changed after since,
// for a tool that may have written records without naming them (a shell
// command). Invalid records are quarantined as by Check; valid ones,
// written by records write or not, pass quietly.
func CheckChanged(root string, since, now time.Time) Report {
	var rep Report
	var problems []string
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are skipped: the check is best effort
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || records.CategoryOfFolder(strings.Split(filepath.ToSlash(rel), "/")[0]) == "") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".json") || strings.Contains(d.Name(), ".invalid.") || !strings.Contains(rel, string(filepath.Separator)) {
			return nil
		}
		if info, err := d.Info(); err != nil || !info.ModTime().After(since) {
			return nil
		}
		t := Target{Path: path, Root: root, Rel: filepath.ToSlash(rel), Class: Protected}
		verr := validateFile(t)
		if verr == nil {
			return nil
		}
		moved, qerr := quarantine(path, now)
		if qerr != nil {
			rep.Warning += fmt.Sprintf("WARNING: could not quarantine %s: %v\n", path, qerr)
			moved = path
		}
		rep.Quarantined = moved
		problems = append(problems, fmt.Sprintf("%s (moved to %s): %s", path, moved, oneLine(verr)))
		return nil
	})
	if len(problems) > 0 {
		rep.Warning += "WARNING: invalid memory records written outside records write: " + strings.Join(problems, "; ")
		rep.Answer = block("Invalid memory records were written outside `records write`: " + strings.Join(problems, "; ") +
			". Write records only with `records write`.")
	}
	rep.Warning = strings.TrimRight(rep.Warning, "\n")
	return rep
}
