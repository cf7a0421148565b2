package doctor

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/internal/secretscan"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/team"
)

// teamQuiet is how many periods may pass without a sync before the
// doctor says the syncs stopped.
const teamQuiet = 10

// memberLag is how long a member may go without publishing before the
// doctor says so: its home may be off, or its syncs failing.
const memberLag = 24 * time.Hour

// shownConflicts bounds the keys a line names.
const shownConflicts = 5

// Team checks the home's team: its membership and last sync, each other
// home's last publish, the entries kept local for a credential, and the
// conflicts waiting. A home in no team has none of these lines. Times
// are shown in loc, and how long ago at now.
func Team(l tiers.Layout, now time.Time, loc *time.Location, period time.Duration) []Check {
	st, err := team.ReadStatus(l)
	checks := TeamChecks(st, err, now, loc, period)
	if len(checks) > 0 {
		checks = append(checks, secretScanner())
	}
	return checks
}

// secretScanner checks that the scanner a publish runs is installed
// beside this binary: without it nothing new is shared.
func secretScanner() Check {
	self, err := hooks.Executable()
	if err == nil {
		var exe string
		if exe, err = secretscan.Binary(self); err == nil {
			return line(OK, "team secret scanner", exe)
		}
	}
	return line(Fail, "team secret scanner", err.Error()+"; nothing new is shared until it is")
}

// TeamChecks are Team's lines of a status read with team.ReadStatus
// (err as it answered), for a view that shows the status too; period is
// how often the service syncs (0: a minute).
func TeamChecks(st team.Status, err error, now time.Time, loc *time.Location, period time.Duration) []Check {
	if errors.Is(err, team.ErrNotJoined) {
		return nil
	}
	if st.URL == "" {
		return []Check{line(Fail, "team", err.Error())}
	}
	if period <= 0 {
		period = time.Minute
	}
	t := teamTimes{now: now, loc: loc, period: period}
	checks := []Check{t.membership(st)}
	for _, name := range st.Members() {
		if m := st.State.Members[name]; m != nil { // nil in a damaged state
			checks = append(checks, t.member(name, m))
		}
	}
	checks = append(checks, teamSecrets(st.Refused))
	if err != nil {
		return append(checks, line(Warn, "team conflicts", "the records could not be read: "+err.Error()))
	}
	return append(checks, teamConflicts(st.Conflicts))
}

// teamTimes shows the times of a team's state: local, and how long ago.
type teamTimes struct {
	now    time.Time
	loc    *time.Location
	period time.Duration
}

// at is an RFC 3339 time as "2006-01-02 15:04 (5m ago)", and its age;
// one that cannot be read is shown as it is, of age 0.
func (t teamTimes) at(stamp string) (string, time.Duration) {
	when, err := time.Parse(time.RFC3339, stamp)
	if err != nil {
		return stamp, 0
	}
	age := t.now.Sub(when)
	return fmt.Sprintf("%s (%s)", when.In(t.loc).Format("2006-01-02 15:04"), Ago(age)), age
}

// Ago says how long ago a time of that age was, roughly.
func Ago(age time.Duration) string {
	switch {
	case age < time.Minute:
		return "just now"
	case age < time.Hour:
		return fmt.Sprintf("%dm ago", int(age/time.Minute))
	case age < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(age/time.Hour))
	}
	return fmt.Sprintf("%d days ago", int(age/(24*time.Hour)))
}

func (t teamTimes) membership(st team.Status) Check {
	members := 1
	for _, m := range st.State.Members {
		if m != nil && !m.Gone {
			members++
		}
	}
	in := fmt.Sprintf("in team at %s as %s, %d %s", ShownRemote(st.URL), st.Name, members, plural(members, "member", "members"))
	quiet := teamQuiet * t.period
	if st.LastError != "" {
		since, _ := t.at(st.ErrorSince)
		return line(Warn, "team", fmt.Sprintf("%s; the last sync failed, and has since %s: %s (no memory is lost; the next sync tries again)", in, since, st.LastError))
	}
	if st.LastSync == "" {
		joined, age := t.at(st.Joined)
		if age > quiet {
			return line(Warn, "team", fmt.Sprintf("%s; joined %s and never synced (is the memory service running? zylos-memory team sync)", in, joined))
		}
		return line(OK, "team", in+", not synced yet")
	}
	last, age := t.at(st.LastSync)
	if age > quiet {
		return line(Warn, "team", fmt.Sprintf("%s; no sync since %s, over %d periods of %v (is the memory service running? zylos-memory team sync)", in, last, teamQuiet, t.period))
	}
	return line(OK, "team", in+", last sync "+last)
}

func (t teamTimes) member(name string, m *team.Member) Check {
	check := "team member " + name
	if m.Gone {
		return line(Warn, check, fmt.Sprintf("its ref is gone from the remote (it left the team, or the ref was deleted); its %d entries stay here", m.Entries))
	}
	status := OK
	published, age := t.at(m.PublishedAt)
	if m.PublishedAt == "" {
		published = "never"
	} else if age > memberLag {
		status = Warn
		published += ", over a day ago (is its home off, or its syncs failing?)"
	}
	applied, _ := t.at(m.AppliedAt)
	detail := fmt.Sprintf("published %s; applied here %s; %d %s", published, applied, m.Entries, plural(m.Entries, "entry", "entries"))
	if n := len(m.Skipped); n > 0 {
		status = Warn
		detail += fmt.Sprintf("; %d left out, unreadable here (zylos-memory team status)", n)
	}
	return line(status, check, detail)
}

// teamSecrets names the entries kept local for a credential, by key and
// the rule that found it: never the credential.
func teamSecrets(refused map[string]string) Check {
	if len(refused) == 0 {
		return line(OK, "team secrets", "no entry kept local for a credential")
	}
	var named []string
	for _, key := range sortedKeys(refused) {
		named = append(named, fmt.Sprintf("%s (%s)", key, RefusedRule(refused[key])))
	}
	n := len(refused)
	return line(Warn, "team secrets", fmt.Sprintf("%d %s kept local, for %s a credential: %s (zylos-memory team status)",
		n, plural(n, "entry", "entries"), plural(n, "it holds", "they hold"), strings.Join(named, ", ")))
}

// RefusedRule is the rule that kept an entry local, from the reason the
// state keeps ("secret: RULE").
func RefusedRule(why string) string {
	if rule, ok := strings.CutPrefix(why, "secret: "); ok {
		return rule
	}
	return why
}

func teamConflicts(cs []team.ConflictEntry) Check {
	if len(cs) == 0 {
		return line(OK, "team conflicts", "none")
	}
	var keys []string
	for _, c := range cs[:min(len(cs), shownConflicts)] {
		keys = append(keys, c.Key)
	}
	if len(cs) > shownConflicts {
		keys = append(keys, fmt.Sprintf("and %d more", len(cs)-shownConflicts))
	}
	return line(Warn, "team conflicts", fmt.Sprintf("%d %s both texts, changed in two homes: %s (zylos-memory team conflicts)",
		len(cs), plural(len(cs), "entry keeps", "entries keep"), strings.Join(keys, ", ")))
}

// ShownRemote is a remote's address as a report shows it: a password or
// an access token in it (https://user:TOKEN@host/...) is left out.
func ShownRemote(remote string) string {
	u, err := url.Parse(remote)
	if err != nil || u.User == nil || u.Scheme == "" {
		return remote // a path, or scp-like user@host:path, which holds no secret
	}
	if _, hasPassword := u.User.Password(); !hasPassword && u.Scheme != "http" && u.Scheme != "https" {
		return remote // ssh://git@host/...: a user name, no secret
	}
	u.User = nil
	return u.Scheme + "://***@" + strings.TrimPrefix(u.String(), u.Scheme+"://")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
