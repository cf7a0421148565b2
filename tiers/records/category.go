package records

import "strings"

// Categories lists every record category in index order.
var Categories = []string{
	"session_summary", "decision", "runbook", "constraint", "tech_debt", "preference", "project", "note",
}

// folders maps each category to its folder under the root (the claude-memory plugin,
// plus "projects" for project records and "notes" for the generic
// entries of other reference files).
var folders = map[string]string{
	"session_summary": "sessions",
	"decision":        "decisions",
	"runbook":         "runbooks",
	"constraint":      "constraints",
	"tech_debt":       "tech-debt",
	"preference":      "preferences",
	"project":         "projects",
	"note":            "notes",
}

// ValidCategory reports whether c is a known category name.
func ValidCategory(c string) bool {
	_, ok := folders[c]
	return ok
}

// Folder is the folder name of category c, or "" if c is unknown.
func Folder(c string) string { return folders[c] }

// CategoryOfFolder is the category stored in folder f, or "".
func CategoryOfFolder(f string) string {
	for c, d := range folders {
		if d == f {
			return c
		}
	}
	return ""
}

// Display is the upper-case form used in index lines: DECISION, TECH_DEBT.
func Display(c string) string { return strings.ToUpper(c) }
