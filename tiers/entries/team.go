package entries

import (
	"strings"
	"unicode"
)

// An entry shared through team memory may carry, on the line after its id
// comment, a team comment saying what its record's team says:
//
//	<!-- team: from laptop; private (secret: github-pat); conflict: zylos-memory team conflicts -->
//
// its attributes joined by "; " in the order from, private, conflict. A
// hand may write "private" into it (or the whole comment) to keep the
// entry on this machine; the other attributes are shown, not read.
const (
	teamPrefix    = "<!-- team: "
	teamSuffix    = " -->"
	teamSeparator = "; "

	TeamFrom     = "from"     // from HOME: the home the entry came from
	TeamPrivate  = "private"  // private, or private (WHY) for a mark the scanner set
	TeamConflict = "conflict" // another home's text is kept aside
	// TeamConflictShown is the conflict attribute as shown: where to see
	// and resolve it.
	TeamConflictShown = TeamConflict + ": zylos-memory team conflicts"
)

// Team is what a team comment shows.
type Team struct {
	From    string // the home the entry came from; "" for this home's own
	Private bool
	// Why is a private mark's reason shown in parentheses ("secret:
	// github-pat"); "" for a mark set by hand.
	Why      string
	Conflict bool
}

// TeamComment is the team comment line showing t, or "" when t has
// nothing to show. Values are made safe for the comment: control
// characters become spaces, ";" a ",", and "--" a "-" (so nothing ends
// the comment or splits an attribute), and ParseTeamComment reads them
// back as they are shown.
func TeamComment(t Team) string {
	var attrs []string
	if from := commentSafe(t.From); from != "" {
		attrs = append(attrs, TeamFrom+" "+from)
	}
	if t.Private {
		if why := commentSafe(t.Why); why != "" {
			attrs = append(attrs, TeamPrivate+" ("+why+")")
		} else {
			attrs = append(attrs, TeamPrivate)
		}
	}
	if t.Conflict {
		attrs = append(attrs, TeamConflictShown)
	}
	if len(attrs) == 0 {
		return ""
	}
	return teamPrefix + strings.Join(attrs, teamSeparator) + teamSuffix
}

// commentSafe is s as an attribute value of a team comment.
func commentSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r):
			return ' '
		case r == ';':
			return ','
		}
		return r
	}, s)
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	// A leading ':' would read as the one after the attribute's word.
	return strings.TrimLeft(strings.TrimSpace(s), ": ")
}

// ParseTeamComment reads a line (trimmed of spaces) that is a team
// comment, as a hand may write it too ("<!--team: private-->"). Unknown
// attributes are ignored; ok says the line is a team comment.
func ParseTeamComment(line string) (t Team, ok bool) {
	inner, ok := strings.CutPrefix(line, "<!--")
	if ok {
		inner, ok = strings.CutSuffix(inner, "-->")
	}
	if ok {
		inner, ok = strings.CutPrefix(strings.TrimSpace(inner), "team:")
	}
	if !ok {
		return Team{}, false
	}
	for _, attr := range strings.Split(inner, ";") {
		attr = strings.TrimSpace(attr)
		if from, ok := cutWord(attr, TeamFrom); ok {
			t.From = from
		} else if why, ok := cutWord(attr, TeamPrivate); ok {
			t.Private = true
			if why, ok = strings.CutPrefix(why, "("); ok {
				t.Why = strings.TrimSpace(strings.TrimSuffix(why, ")"))
			}
		} else if _, ok := cutWord(attr, TeamConflict); ok {
			t.Conflict = true
		}
	}
	return t, true
}

// cutWord answers what follows the word an attribute starts with (in any
// case; a ":" after it and spaces dropped).
func cutWord(attr, word string) (string, bool) {
	if len(attr) < len(word) || !strings.EqualFold(attr[:len(word)], word) {
		return "", false
	}
	rest := attr[len(word):]
	if rest != "" && (unicode.IsLetter(rune(rest[0])) || unicode.IsDigit(rune(rest[0]))) {
		return "", false
	}
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":")), true
}

// IsTeamComment reports whether the line (trimmed of spaces) is a team
// comment.
func IsTeamComment(line string) bool {
	_, ok := ParseTeamComment(line)
	return ok
}
