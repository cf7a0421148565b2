package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/tiers/team"
)

func newTeamCommand() *cli.Command {
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "answer in JSON"}
	return &cli.Command{
		Name:  "team",
		Usage: "share the reference tier with the other homes of a team, through a git remote",
		Subcommands: []*cli.Command{
			{
				Name:      "join",
				Usage:     "join the team whose homes publish to the git remote URL, then sync",
				ArgsUsage: "URL [--name NAME]",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "name", Usage: "this home's name in the team (default: the host's name)"}},
				Action:    teamJoin,
			},
			{
				Name:   "leave",
				Usage:  "stop sharing: memories stay, those from other homes with their origins",
				Action: teamLeave,
			},
			{
				Name:   "status",
				Usage:  "the membership, each member's last publish, the last sync, entries kept local",
				Flags:  []cli.Flag{jsonFlag},
				Action: teamStatus,
			},
			{
				Name:   "sync",
				Usage:  "fetch the team's memories, apply them, publish this home's, now",
				Flags:  []cli.Flag{jsonFlag},
				Action: teamSync,
			},
			{
				Name:   "conflicts",
				Usage:  "the entries changed in two homes at once: the text shown and the one kept beside it",
				Flags:  []cli.Flag{jsonFlag},
				Action: teamConflicts,
			},
		},
	}
}

func teamJoin(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	// `team join URL --name NAME` as the usage reads: urfave stops reading
	// flags at the first argument.
	args, name := c.Args().Slice(), c.String("name")
	if len(args) == 3 && args[1] == "--name" {
		args, name = args[:1], args[2]
	} else if len(args) == 2 && strings.HasPrefix(args[1], "--name=") {
		args, name = args[:1], strings.TrimPrefix(args[1], "--name=")
	}
	if len(args) != 1 {
		return cli.Exit("zylos-memory: team join: give the git remote's URL, once", 2)
	}
	url := args[0]
	if name == "" {
		host, _ := os.Hostname()
		name = hostName(host)
	}
	cfg, err := team.Join(c.Context, e.home, url, name)
	if err != nil {
		return cli.Exit("zylos-memory: "+err.Error(), 1)
	}
	fmt.Fprintf(e.stdout, "joined the team at %s as %s\n", cfg.URL, cfg.Name)
	return runTeamSync(c, e, false)
}

// hostName is a host's name as a team's home name: lowercase, its
// domain dropped, anything else a '-'.
func hostName(host string) string {
	host, _, _ = strings.Cut(strings.ToLower(host), ".")
	var b strings.Builder
	for _, r := range host {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	if name := strings.Trim(b.String(), "-_"); team.ValidName(name) {
		return name
	}
	return "home"
}

func teamLeave(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	cfg, err := team.Leave(e.layout)
	if err != nil {
		return cli.Exit("zylos-memory: team leave: "+err.Error(), 1)
	}
	fmt.Fprintf(e.stdout, "left the team at %s; this home's memories stay\n", cfg.URL)
	return nil
}

func teamSync(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	// Background work, as in the service: the hooks that run meanwhile
	// come first.
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, 10)
	return runTeamSync(c, e, c.Bool("json"))
}

// runTeamSync syncs once and reports; a remote that could not be reached
// is exit 1, after what was done locally.
func runTeamSync(c *cli.Context, e *env, asJSON bool) error {
	rep, err := team.Sync(c.Context, e.home, secretScanner())
	if err != nil {
		return cli.Exit("zylos-memory: team sync: "+err.Error(), 1)
	}
	if asJSON {
		out := map[string]any{"applied": rep.Applied, "conflicts": nonNil(rep.Conflicts), "refused": nonNil(rep.Refused),
			"skipped": nonNil(rep.Skipped), "published": rep.Published, "pushed": rep.Pushed}
		if rep.Problem != nil {
			out["problem"] = rep.Problem.Error()
		}
		if err := json.NewEncoder(e.stdout).Encode(out); err != nil {
			return err
		}
	} else {
		printSyncReport(e, rep)
	}
	if rep.Problem != nil {
		return cli.Exit("", 1)
	}
	return nil
}

func printSyncReport(e *env, rep *team.Report) {
	for member, n := range rep.Applied {
		fmt.Fprintf(e.stdout, "%d from %s\n", n, member)
	}
	for _, k := range rep.Conflicts {
		fmt.Fprintf(e.stdout, "conflict: %s (zylos-memory team conflicts)\n", k)
	}
	for _, r := range rep.Refused {
		fmt.Fprintf(e.stdout, "kept local, it holds a credential: %s\n", r)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(e.stderr, "skipped: %s\n", s)
	}
	pushed := "published"
	if !rep.Pushed {
		pushed = "up to date on the remote"
	}
	if rep.Problem != nil {
		pushed = "not published"
		fmt.Fprintf(e.stderr, "zylos-memory: team sync: %v\n", rep.Problem)
	}
	fmt.Fprintf(e.stdout, "%s shared, %s\n", countEntries(rep.Published), pushed)
}

// countEntries is n with its noun.
func countEntries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func teamStatus(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	st, err := team.ReadStatus(e.layout)
	if errors.Is(err, team.ErrNotJoined) {
		return cli.Exit("zylos-memory: "+err.Error(), 1)
	}
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return json.NewEncoder(e.stdout).Encode(st)
	}
	w := e.stdout
	fmt.Fprintf(w, "team:      %s\nthis home: %s (joined %s)\n", st.URL, st.Name, st.Joined)
	last := st.LastSync
	if last == "" {
		last = "never"
	}
	fmt.Fprintf(w, "last sync: %s\n", last)
	if st.LastError != "" {
		fmt.Fprintf(w, "problem:   %s (since %s)\n", st.LastError, st.ErrorSince)
	}
	for _, name := range st.Members() {
		m := st.State.Members[name]
		state := "published " + ago(e.now(), m.PublishedAt)
		if m.Gone {
			state = "gone from the remote"
		}
		fmt.Fprintf(w, "member %s: %s, %s\n", name, countEntries(m.Entries), state)
		for _, s := range m.Skipped {
			fmt.Fprintf(w, "  skipped: %s\n", s)
		}
	}
	fmt.Fprintf(w, "arrived:   %d\nconflicts: %d\n", st.Arrived, len(st.Conflicts))
	for key, why := range st.Refused {
		fmt.Fprintf(w, "kept local: %s (%s)\n", key, why)
	}
	return nil
}

// ago says how long before now the RFC 3339 time at was.
func ago(now time.Time, at string) string {
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return "at an unknown time"
	}
	return now.Sub(t).Round(time.Second).String() + " ago"
}

func teamConflicts(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	cs, err := team.Conflicts(e.layout)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if cs == nil {
			cs = []team.ConflictEntry{}
		}
		return json.NewEncoder(e.stdout).Encode(cs)
	}
	if len(cs) == 0 {
		fmt.Fprintln(e.stdout, "No conflicts.")
		return nil
	}
	for _, ce := range cs {
		kept, _ := json.Marshal(ce.Conflict.Content)
		fmt.Fprintf(e.stdout, "%s %q (%s)\n  kept beside it, %s's text: %q %s\n  resolve: edit the entry, or zylos-memory records write --action update --target %s\n",
			ce.Key, ce.Title, ce.Record, ce.Conflict.Home, ce.Conflict.Title, kept, ce.Record)
	}
	return nil
}
