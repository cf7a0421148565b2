package team

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// ErrNotJoined is the answer of a team command on a home of no team.
var ErrNotJoined = errors.New("this home is in no team: zylos-memory team join URL")

// Config is a home's membership: the remote every member shares and the
// name this home publishes under. It lives in memory/.state/team/.
type Config struct {
	URL  string `json:"url"`
	Name string `json:"name"`
	// HomeID tells this home from another that took its name.
	HomeID string `json:"home_id"`
	Joined string `json:"joined_at"`
}

// ValidName reports whether name can name a home of a team: it becomes
// a ref and a trailer, so 1 to 63 of lowercase letters, digits, '.', '_'
// and '-', starting with a letter or a digit, never ending in ".lock".
// (A loop, not a regexp: a compiled one would cost every process start.)
func ValidName(name string) bool {
	if name == "" || len(name) > 63 || strings.HasSuffix(name, ".lock") || strings.Contains(name, "..") {
		return false
	}
	for i, r := range name {
		plain := r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		if !plain && (i == 0 || r != '.' && r != '_' && r != '-') {
			return false
		}
	}
	return true
}

// State is what the exchange remembers between syncs; losing it costs a
// full comparison on the next sync, never a memory.
type State struct {
	// Book is what the exchange keeps of each entry, in a file of its
	// own: the readers of the state (SessionStart, doctor) never read it.
	Book `json:"-"`
	// LocalStamp is the shared records' folders as the last full sync
	// found them (see localStamp); Shared is how many entries it shared.
	LocalStamp string `json:"local_stamp,omitempty"`
	Shared     int    `json:"shared,omitempty"`
	// Refused are the entries kept local, by key, and why.
	Refused map[string]string `json:"refused"`
	// Retry are, by member, the entries whose apply failed: the next sync
	// takes them again whatever the member's commit.
	Retry map[string][]string `json:"retry,omitempty"`
	// Members are the other homes as the last sync found them.
	Members map[string]*Member `json:"members"`
	// Arrived counts the entries applied from members, ever.
	Arrived int `json:"arrived"`
	// Conflicts counts the entries holding a conflict when the last sync
	// ended: what SessionStart tells without reading every record.
	Conflicts int    `json:"conflicts"`
	LastSync  string `json:"last_sync,omitempty"`
	LastError string `json:"last_error,omitempty"`
	// ErrorSince is when the failing started (the error is told once).
	ErrorSince string `json:"error_since,omitempty"`
}

// Book is what the exchange keeps of each entry, by key: about a hundred
// bytes each, so a home of thousands of entries keeps it apart from the
// state every reader reads.
type Book struct {
	// Published is, for each entry this home published, its digest and
	// revision then.
	Published map[string]Published `json:"published"`
	// PublishedSet is the digest of the entries published last (setDigest).
	PublishedSet string `json:"published_set,omitempty"`
	// History is each entry's lineage in this home (see Entry.History).
	History map[string][]string `json:"history"`
	// Seen is the highest revision of each entry a member published.
	Seen map[string]int `json:"seen"`
}

// retrying reports whether the apply of member's entry key failed last.
func (st *State) retrying(member, key string) bool {
	return slices.Contains(st.Retry[member], key)
}

// Published is an entry as this home published it last.
type Published struct {
	Digest string `json:"digest"`
	Rev    int    `json:"rev"`
	// Session is the Claude Code session of the change published.
	Session string `json:"session,omitempty"`
}

// Member is another home of the team as the last sync found it.
type Member struct {
	Commit      string   `json:"commit"`
	PublishedAt string   `json:"published_at,omitempty"`
	AppliedAt   string   `json:"applied_at,omitempty"`
	Entries     int      `json:"entries"`
	Skipped     []string `json:"skipped,omitempty"`
	// Gone is set when the member's ref vanished from the remote.
	Gone bool `json:"gone,omitempty"`
}

// dir is the exchange's directory of a home.
func dir(l tiers.Layout) string { return filepath.Join(l.StateDir(), "team") }

func configPath(l tiers.Layout) string { return filepath.Join(dir(l), "team.json") }
func statePath(l tiers.Layout) string  { return filepath.Join(dir(l), "state.json") }

// homeIDPath keeps the home's id through a leave: joining again under
// its name is joining as itself.
func homeIDPath(l tiers.Layout) string { return filepath.Join(dir(l), "home-id") }
func bookPath(l tiers.Layout) string   { return filepath.Join(dir(l), "entries.json") }
func repoPath(l tiers.Layout) string   { return filepath.Join(dir(l), "repo.git") }

// announcedPath holds the count of arrivals SessionStart has told.
func announcedPath(l tiers.Layout) string { return filepath.Join(dir(l), "announced") }

// ReadConfig reads a home's membership; ErrNotJoined when it has none.
func ReadConfig(l tiers.Layout) (Config, error) {
	var c Config
	data, err := regfile.ReadFileLimit(configPath(l), 64<<10)
	if errors.Is(err, os.ErrNotExist) {
		return c, ErrNotJoined
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(data, &c); err != nil || c.URL == "" || !ValidName(c.Name) {
		return c, fmt.Errorf("%s: not a team membership; join again", configPath(l))
	}
	return c, nil
}

// ReadState reads the exchange's state; an empty one when there is none
// or it cannot be read (it is rebuilt by the next sync).
func ReadState(l tiers.Layout) State {
	var s State
	if data, err := regfile.ReadFileLimit(statePath(l), 64<<20); err == nil {
		_ = json.Unmarshal(data, &s)
	}
	if s.Refused == nil {
		s.Refused = map[string]string{}
	}
	if s.Members == nil {
		s.Members = map[string]*Member{}
	}
	if s.Retry == nil {
		s.Retry = map[string][]string{}
	}
	for name, m := range s.Members {
		if m == nil { // a damaged state: the next sync finds the member again
			delete(s.Members, name)
		}
	}
	return s
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o600)
}

// readBook reads the book of l's entries; an empty one when there is
// none or it cannot be read (the next sync starts the lineages again).
func readBook(l tiers.Layout) Book {
	var b Book
	if data, err := regfile.ReadFileLimit(bookPath(l), 256<<20); err == nil {
		_ = json.Unmarshal(data, &b)
	}
	if b.Published == nil {
		b.Published = map[string]Published{}
	}
	if b.History == nil {
		b.History = map[string][]string{}
	}
	if b.Seen == nil {
		b.Seen = map[string]int{}
	}
	return b
}
