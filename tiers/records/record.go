package records

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/zylos/zylos-memory/internal/lazy"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// Record status values (top-level lifecycle, not content.status).
const (
	StatusActive   = "active"
	StatusRetired  = "retired"
	StatusArchived = "archived"
)

// Caps of the claude-memory plugin.
const (
	TagCap     = 12
	ChangesCap = 50
	IDMax      = 80
)

// Change is one entry of a record's changes[] log.
type Change struct {
	Date     string `json:"date"`
	Summary  string `json:"summary"`
	Field    string `json:"field,omitempty"`
	OldValue any    `json:"old_value,omitempty"`
	NewValue any    `json:"new_value,omitempty"`
}

// Record is a record file as readers see it. Content stays generic: its
// fields depend on the category and are checked by the schema.
type Record struct {
	SchemaVersion  string         `json:"schema_version"`
	Category       string         `json:"category"`
	ID             string         `json:"id"`
	Title          string         `json:"title"`
	RecordStatus   string         `json:"record_status,omitempty"`
	CreatedAt      string         `json:"created_at"`
	UpdatedAt      string         `json:"updated_at"`
	Tags           []string       `json:"tags"`
	RelatedFiles   []string       `json:"related_files,omitempty"`
	Confidence     *float64       `json:"confidence,omitempty"`
	Content        map[string]any `json:"content"`
	Changes        []Change       `json:"changes,omitempty"`
	TimesUpdated   int            `json:"times_updated"`
	RetiredAt      string         `json:"retired_at,omitempty"`
	RetiredReason  string         `json:"retired_reason,omitempty"`
	ArchivedAt     string         `json:"archived_at,omitempty"`
	ArchivedReason string         `json:"archived_reason,omitempty"`
	Team           *Team          `json:"team,omitempty"`
}

// Status is the record's lifecycle status; files from before
// record_status existed count as active.
func (r *Record) Status() string {
	if r.RecordStatus == "" {
		return StatusActive
	}
	return r.RecordStatus
}

// ParseRecord decodes record JSON leniently (no schema check): readers
// must cope with any file a user left in the tree.
func ParseRecord(data []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ReadRecord reads and decodes the record file at path.
func ReadRecord(path string) (*Record, error) {
	data, err := regfile.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read record: %w", err)
	}
	r, err := ParseRecord(data)
	if err != nil {
		return nil, fmt.Errorf("parse record %s: %w", path, err)
	}
	return r, nil
}

// Hash is the MD5 hex digest of a file's bytes: the token of --hash.
func Hash(data []byte) string {
	sum := md5.Sum(data)
	return hex.EncodeToString(sum[:])
}

var (
	nonSlug  = lazy.Regexp(`[^a-z0-9]+`)
	idFormat = lazy.Regexp(`^[a-z0-9]([a-z0-9-]{0,78}[a-z0-9])?$`)
)

// Slugify makes a kebab-case id: NFKD, ASCII only, lower case, runs of
// other characters become one '-', at most 80 characters.
func Slugify(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if r < 0x80 {
			b.WriteRune(r)
		}
	}
	slug := strings.Trim(nonSlug().ReplaceAllString(strings.ToLower(b.String()), "-"), "-")
	if len(slug) > IDMax {
		slug = strings.TrimRight(slug[:IDMax], "-")
	}
	return slug
}

// titleHashLen is how many hex digits of a title's hash an id carries
// (48 bits: two titles of one category sharing an id is out of reach).
const titleHashLen = 12

// TitleID is the id a new record of title gets. A title the slug keeps
// whole (ASCII letters and digits; accents fold away) gets its slug, as
// the claude-memory plugin names it. A title with letters or digits of
// another script, or with none the slug keeps ("数据库选择", "🚀🚀"), gets
// its slug, if any, and a hash of the title, so that it has an id and two
// titles never share one ("使用SQLite存储" is sqlite-<hash>, not sqlite).
func TitleID(title string) string {
	slug := Slugify(title)
	title = norm.NFC.String(strings.TrimSpace(title))
	if title == "" || (slug != "" && !dropsLetters(title)) {
		return slug
	}
	sum := sha256.Sum256([]byte(title))
	h := hex.EncodeToString(sum[:])[:titleHashLen]
	if slug == "" {
		return h
	}
	if room := IDMax - titleHashLen - 1; len(slug) > room {
		slug = strings.TrimRight(slug[:room], "-")
	}
	return slug + "-" + h
}

// dropsLetters reports a title with letters or digits Slugify drops: any
// outside ASCII once accents are folded away.
func dropsLetters(title string) bool {
	for _, r := range norm.NFKD.String(title) {
		if r >= 0x80 && (unicode.IsLetter(r) || unicode.IsNumber(r)) {
			return true
		}
	}
	return false
}

// ValidID reports whether id has the form of the claude-memory plugin's ID_PATTERN.
func ValidID(id string) bool { return idFormat().MatchString(id) }
