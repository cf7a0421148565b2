package entries

import (
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/lazy"
)

// Kind says which format of Memory Architecture v2 an entry follows.
type Kind string

const (
	KindDecision    Kind = "decision"   // ### [YYYY-MM-DD] Title + Decision/Context/Status
	KindProject     Kind = "project"    // ### Name + Status/Updated/Notes
	KindPreference  Kind = "preference" // ### Name + Value/Source/Added
	KindSessionLine Kind = "session"    // **HH:MM** - text
	KindCoreSection Kind = "core"       // ## Section of core.md
	KindGeneric     Kind = "generic"    // ### Title in any other reference file
	kindNone        Kind = ""           // file holds no entries of ours
)

const (
	DateLayout = "2006-01-02" // every date in the tier files
	timeLayout = "15:04"      // the HH:MM of a session line
)

// sessionName matches a rotated session log: YYYY-MM-DD.md, or with the
// -N suffix rotation gives a colliding target.
var sessionName = lazy.Regexp(`^(\d{4}-\d{2}-\d{2})(-\d+)?\.md$`)

// KindOf picks the entry format from a tier file's name. Archive files keep
// the format of the file they came from (decisions-2025.md is a decision log).
func KindOf(name string) Kind {
	base := filepath.Base(name)
	dir := filepath.Base(filepath.Dir(name))
	if !strings.HasSuffix(base, ".md") {
		return kindNone
	}
	switch {
	case base == "core.md":
		return KindCoreSection
	case strings.HasPrefix(base, "decisions"):
		return KindDecision
	case strings.HasPrefix(base, "projects"):
		return KindProject
	case strings.HasPrefix(base, "preferences"):
		return KindPreference
	case dir == "sessions", sessionName().MatchString(base):
		return KindSessionLine
	}
	return KindGeneric
}

// entryLevel is the heading level that starts an entry of kind; 0 means
// entries are not headings (session lines).
func (k Kind) entryLevel() int {
	switch k {
	case KindCoreSection:
		return 2
	case KindSessionLine, kindNone:
		return 0
	}
	return 3
}

// requiredFields are the fields an entry must have to be acted upon.
func (k Kind) requiredFields() []string {
	switch k {
	case KindDecision:
		return []string{"Decision", "Status"}
	case KindProject:
		return []string{"Status", "Updated"}
	case KindPreference:
		return []string{"Value"}
	}
	return nil
}

// knownStatuses lists the Status values Memory Architecture v2 defines per kind.
func (k Kind) knownStatuses() []string {
	switch k {
	case KindDecision:
		return []string{"active", "superseded", "archived"}
	case KindProject:
		// Memory Architecture v2's, then zylos-core v0.7.1's (projects-format.md).
		return []string{"active", "completed", "blocked", "planned", "planning", "paused", "abandoned"}
	}
	return nil
}

// dateField is the field holding an entry's date, when the heading has none.
func (k Kind) dateField() string {
	switch k {
	case KindProject:
		return "Updated"
	case KindPreference:
		return "Added"
	}
	return ""
}
