package team

import (
	"sort"
	"strconv"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/records"
)

// Status is a home's membership and what its syncs found.
type Status struct {
	Config
	State
	// Conflicts are the entries holding a conflict now.
	Conflicts []ConflictEntry
}

// ConflictEntry is an entry that holds a conflict: its record, the text
// it shows and the text kept beside it.
type ConflictEntry struct {
	Key      string            `json:"key"`
	Record   string            `json:"record"` // relative to the zylos dir
	Title    string            `json:"title"`
	Origin   string            `json:"origin,omitempty"`
	Conflict *records.Conflict `json:"conflict"`
}

// ReadStatus reads the membership, the state and the conflicts of l;
// ErrNotJoined when l is in no team.
func ReadStatus(l tiers.Layout) (Status, error) {
	cfg, err := ReadConfig(l)
	if err != nil {
		return Status{}, err
	}
	st := Status{Config: cfg, State: ReadState(l)}
	st.Conflicts, err = Conflicts(l)
	return st, err
}

// Conflicts lists the entries of l holding a conflict, by key.
func Conflicts(l tiers.Layout) ([]ConflictEntry, error) {
	local, _, _, err := readLocal(l.RecordsDir())
	if err != nil {
		return nil, err
	}
	var out []ConflictEntry
	for key, r := range local {
		if r.conflict == nil {
			continue
		}
		out = append(out, ConflictEntry{Key: key, Record: relTo(l.ZylosDir, r.abs), Title: r.entry.Title, Origin: r.origin, Conflict: r.conflict})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Members lists the other homes a sync has seen, by name.
func (st *Status) Members() []string { return st.State.members() }

// Unannounced is how many entries of those st counts arrived since
// SessionStart last told (and, with mark, marks them told).
func Unannounced(l tiers.Layout, st State, mark bool) int {
	told := 0
	if data, err := regfile.ReadFileLimit(announcedPath(l), 64); err == nil {
		told, _ = strconv.Atoi(string(data))
	}
	n := st.Arrived - told
	if n < 0 {
		n = st.Arrived
	}
	if mark && n > 0 {
		_ = atomicfile.WriteFile(announcedPath(l), []byte(strconv.Itoa(st.Arrived)), 0o600)
	}
	return n
}

func relTo(base, abs string) string {
	if len(abs) > len(base)+1 && abs[:len(base)] == base {
		return abs[len(base)+1:]
	}
	return abs
}
