package team

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/zylos/zylos-memory/tiers/records"
)

// Shared are the record categories of the reference tier, the ones a team
// shares; the others (session summaries, runbooks, constraints, tech debt)
// stay with their home.
var Shared = []string{"decision", "project", "preference", "note"}

// maxEntry bounds a member's entry: records are a few KB.
const maxEntry = 256 << 10

// Entry is a record as the team exchanges it: what it says and where it
// came from, without this home's change log.
type Entry struct {
	ID             string         `json:"id"`
	Category       string         `json:"category"`
	Title          string         `json:"title"`
	Tags           []string       `json:"tags"`
	Content        map[string]any `json:"content"`
	Status         string         `json:"record_status"`
	RelatedFiles   []string       `json:"related_files,omitempty"`
	CreatedAt      string         `json:"created_at,omitempty"`
	UpdatedAt      string         `json:"updated_at,omitempty"`
	RetiredReason  string         `json:"retired_reason,omitempty"`
	ArchivedReason string         `json:"archived_reason,omitempty"`
	// Origin is the home that wrote the entry first.
	Origin string `json:"origin"`
	// Rev is the entry's revision in the team's logical time: one more
	// than any revision of it its home had seen when it changed it. A
	// conflict goes to the higher (wall clocks play no part).
	Rev int `json:"rev"`
	// Conflict is a text that lost a conflict, kept until resolved.
	Conflict *records.Conflict `json:"conflict,omitempty"`
	// History lists the digests of the texts the entry had, oldest first,
	// its own last: a text in another home's history is one it changed
	// from, so what changed is decided by lineage, never by a clock.
	History []string `json:"history,omitempty"`
	// Session is the Claude Code session of the change, when known.
	Session string `json:"session,omitempty"`
}

// historyCap bounds an entry's history.
const historyCap = 32

// key is the entry's identity: category and id.
func (e *Entry) key() string { return e.Category + "/" + e.ID }

// path is where the entry lies in a member's tree.
func (e *Entry) path() string { return "records/" + records.Folder(e.Category) + "/" + e.ID + ".json" }

// text is what the entry says, as a conflict compares it: title, content
// and status. Tags are left out: they only grow, and merge as a union.
func (e *Entry) text() string {
	return canonical(map[string]any{"title": e.Title, "content": e.Content, "record_status": e.Status})
}

// conflictText is what a conflict says, compared as an entry's text is.
func conflictText(c *records.Conflict) string {
	if c == nil {
		return ""
	}
	return canonical(map[string]any{"title": c.Title, "content": c.Content, "record_status": c.RecordStatus})
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// digest is a short stable hash of the entry's text and its conflict:
// what a publish compares to know whether the entry changed.
func (e *Entry) digest() string {
	return shortHash(e.text() + "\x00" + conflictText(e.Conflict) + "\x00" + canonical(sortedTags(e.Tags)))
}

func sortedTags(tags []string) []string {
	t := slices.Clone(tags)
	slices.Sort(t)
	return slices.Compact(t)
}

// canonical is v as JSON with sorted keys (encoding/json sorts map keys).
func canonical(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return b.String()
}

// decodeEntry reads a member's entry at path, refusing what no home
// writes: an id or category that does not match its path, an unknown
// category, an entry over the size limit.
func decodeEntry(path string, data []byte) (*Entry, error) {
	if len(data) > maxEntry {
		return nil, fmt.Errorf("%s: %d bytes, over the limit of %d", path, len(data), maxEntry)
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("%s: not a record: %v", path, err)
	}
	switch {
	case !slices.Contains(Shared, e.Category):
		return nil, fmt.Errorf("%s: category %q is not shared", path, e.Category)
	case !records.ValidID(e.ID):
		return nil, fmt.Errorf("%s: id %q is not a record id", path, e.ID)
	case e.path() != path:
		return nil, fmt.Errorf("%s: says it is %s", path, e.path())
	case e.Title == "" || e.Content == nil:
		return nil, fmt.Errorf("%s: no title or content", path)
	case e.Origin != "" && !ValidName(e.Origin):
		return nil, fmt.Errorf("%s: origin %q is not a home's name", path, e.Origin)
	case !validSession(e.Session):
		return nil, fmt.Errorf("%s: session %q is not a session id", path, e.Session)
	case len(e.History) > historyCap:
		return nil, fmt.Errorf("%s: a history of %d texts, over %d", path, len(e.History), historyCap)
	case e.Status != records.StatusActive && e.Status != records.StatusRetired && e.Status != records.StatusArchived:
		return nil, fmt.Errorf("%s: record_status %q", path, e.Status)
	}
	return &e, nil
}

// lineage is the history h with digest last, the oldest dropped beyond
// the cap.
func lineage(h []string, digest string) []string {
	out := slices.DeleteFunc(slices.Clone(h), func(d string) bool { return d == digest })
	return capped(append(out, digest))
}

// joined is the union of two histories, a's order first.
func joined(a, b []string) []string {
	out := slices.Clone(a)
	for _, d := range b {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return capped(out)
}

// capped keeps the newest historyCap digests of h.
func capped(h []string) []string {
	if len(h) > historyCap {
		return h[len(h)-historyCap:]
	}
	return h
}

// validSession reports whether s can be a Claude Code session id as a
// journal trailer carries it: at most 128 letters, digits, '-', '_', '.'.
func validSession(s string) bool {
	if len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
