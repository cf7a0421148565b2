package c4sync

import (
	"encoding/json"
	"time"
)

// CheckpointOptions selects how CheckpointCommand creates a checkpoint.
type CheckpointOptions struct {
	Safe     bool     // go through the pipeline's checks (sync checkpoint)
	Pipeline Pipeline // used when Safe
	Now      func() time.Time
}

// CheckpointCommand runs a parsed `c4 checkpoint` command line and returns
// its output: `Checkpoint created: {...}` for a creation, 2-space JSON for
// list and latest.
func CheckpointCommand(path string, a CheckpointArgs, opts CheckpointOptions) (string, error) {
	if a.Action == "create" {
		created, err := createCheckpoint(path, a, opts)
		if err != nil {
			return "", err
		}
		data, err := json.Marshal(created)
		return "Checkpoint created: " + string(data) + "\n", err
	}
	db, err := Open(path)
	if err != nil {
		return "", err
	}
	defer db.Close()
	cps, err := db.Checkpoints(a.Limit)
	if err != nil {
		return "", err
	}
	var v any = cps
	if a.Action == "latest" {
		v = nil
		if len(cps) > 0 {
			v = cps[0]
		}
	}
	data, err := json.MarshalIndent(v, "", "  ")
	return string(data) + "\n", err
}

func createCheckpoint(path string, a CheckpointArgs, opts CheckpointOptions) (Created, error) {
	if opts.Safe {
		return opts.Pipeline.Checkpoint(a.End, a.Summary, opts.Now)
	}
	db, err := OpenWrite(path)
	if err != nil {
		return Created{}, err
	}
	defer db.Close()
	db.SetClock(opts.Now)
	return db.CreateCheckpoint(a.End, a.Summary)
}

// CreateLine is what `c4 init` prints.
func CreateLine(path string, created bool) string {
	if created {
		return "Created C4 database: " + path
	}
	return "C4 database already exists: " + path
}
