package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

func newC4Command() *cli.Command {
	return withC4DBFlag(&cli.Command{
		Name:  "c4",
		Usage: "read and write the C4 conversation log (comm-bridge/c4.db)",
		Subcommands: []*cli.Command{
			{Name: "fetch", Usage: "print conversations begin..end (inclusive) after the last checkpoint summary",
				ArgsUsage: "--begin <id> --end <id> | --unsummarized", SkipFlagParsing: true, Action: c4Fetch},
			{Name: "unsummarized", Usage: "print the unsummarized range as JSON", Action: c4Unsummarized},
			{Name: "checkpoint", Usage: "create, list or show checkpoints",
				ArgsUsage:       `<end_id> [--summary "text"] | create <end_id> [--summary "text"] | list [--limit N] | latest`,
				SkipFlagParsing: true, Action: c4Checkpoint},
			{Name: "session-init", Usage: "print the session-start context (summary, recent conversations, sync trigger)",
				Flags: []cli.Flag{thresholdFlag()}, Action: c4SessionInit},
			{Name: "threshold-check", Usage: "print the sync trigger when unsummarized conversations exceed the threshold",
				Flags: []cli.Flag{thresholdFlag()}, Action: c4ThresholdCheck},
			c4ReceiveCommand(),
			{Name: "init", Usage: "create the C4 database if it is missing", Action: c4Init},
		},
	})
}

// withC4DBFlag lets --c4-db follow the subcommand too: subcommands that
// parse their own arguments find it there (ownArgs), the others get the flag.
func withC4DBFlag(parent *cli.Command) *cli.Command {
	parent.Flags = append(parent.Flags, c4DBFlag())
	for _, sub := range parent.Subcommands {
		if !sub.SkipFlagParsing {
			sub.Flags = append(sub.Flags, c4DBFlag())
		}
	}
	return parent
}

func c4DBFlag() cli.Flag {
	return &cli.StringFlag{Name: "c4-db", Usage: "C4 database (default: $ZYLOS_DIR/comm-bridge/c4.db)"}
}

func thresholdFlag() cli.Flag {
	return &cli.IntFlag{Name: "threshold", EnvVars: []string{"C4_SYNC_THRESHOLD"},
		Usage: "unsummarized count above which a memory sync is requested (default: 30 in a v2 home, 15 in a v0.7 home)"}
}

// c4Env is what every c4 and sync command needs: the env and the DB path.
func c4Env(c *cli.Context) (*env, string, error) {
	e, err := homeEnv(c)
	if err != nil {
		return nil, "", err
	}
	if underSync(c) {
		// sync rotates the session log and keeps its ledger in .state.
		if err := e.layout.CheckConfined(); err != nil {
			return nil, "", err
		}
	}
	if _, p := ownArgs(c); p != "" {
		return e, p, nil
	}
	for _, ctx := range c.Lineage() {
		if p := ctx.String("c4-db"); p != "" {
			return e, p, nil
		}
	}
	return e, e.layout.C4DB(), nil
}

// ownArgs splits the arguments of a command that parses them itself into
// its own and a --c4-db given among them (after the subcommand name).
func ownArgs(c *cli.Context) (args []string, c4DB string) {
	all := c.Args().Slice()
	for i := 0; i < len(all); i++ {
		name, val, inline := strings.Cut(all[i], "=")
		if name != "--c4-db" || !c.Command.SkipFlagParsing {
			args = append(args, all[i])
			continue
		}
		if !inline && i+1 < len(all) {
			i++
			val = all[i]
		}
		c4DB = val
	}
	return args, c4DB
}

// withDB opens the C4 database read-only and writes what read returns. A
// missing database is created first, as the Node C4 does on first use.
func withDB(c *cli.Context, read func(*c4sync.DB) (string, error)) error {
	e, path, err := c4Env(c)
	if err != nil {
		return err
	}
	if err := firstUse(e, path); err != nil {
		return err
	}
	db, err := c4sync.Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	out, err := read(db)
	if err != nil {
		return err
	}
	_, err = io.WriteString(e.stdout, out)
	return err
}

// helpRequested lets commands that parse their own arguments still answer --help.
func helpRequested(c *cli.Context) bool {
	for _, a := range c.Args().Slice() {
		if a == "--help" || a == "-h" {
			return true
		}
	}
	return false
}

func showHelp(c *cli.Context) error { return cli.ShowCommandHelp(c.Lineage()[1], c.Command.Name) }

// usageExit prints a usage text on stderr and exits 1, as the Node scripts do.
func usageExit(c *cli.Context, usage string) error {
	fmt.Fprintln(c.App.ErrWriter, usage)
	return cli.Exit("", 1)
}

func c4Fetch(c *cli.Context) error {
	if own, _ := ownArgs(c); c4sync.WantsUnsummarized(own) && !helpRequested(c) {
		return withDB(c, func(db *c4sync.DB) (string, error) { return db.FetchUnsummarized() })
	}
	return withRange(c, func(begin, end int64) error {
		return withDB(c, func(db *c4sync.DB) (string, error) { return db.Fetch(begin, end) })
	})
}

// withRange parses `--begin X --end Y` as c4-fetch.js does (its usage line
// on stderr and exit 1 when they are bad) and runs do with them.
func withRange(c *cli.Context, do func(begin, end int64) error) error {
	if helpRequested(c) {
		return showHelp(c)
	}
	args, _ := ownArgs(c)
	begin, end, err := c4sync.ParseFetchArgs(args)
	if errors.Is(err, c4sync.ErrUsage) {
		return usageExit(c, c4sync.FetchUsage)
	}
	if err != nil {
		return err
	}
	return do(begin, end)
}

func c4Unsummarized(c *cli.Context) error {
	return withDB(c, func(db *c4sync.DB) (string, error) {
		r, err := db.Unsummarized()
		if err != nil {
			return "", err
		}
		return indentJSON(r)
	})
}

// indentJSON renders v as JSON.stringify(v, null, 2) does, plus a newline.
func indentJSON(v any) (string, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	return string(data) + "\n", err
}

func c4SessionInit(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	kind := e.home.Kind
	return withDB(c, func(db *c4sync.DB) (string, error) {
		s, err := db.SessionInit(kind, threshold(c, kind), filepath.Join(e.layout.ClaudeDir(), "skills"))
		return s.String(), err
	})
}

func c4ThresholdCheck(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	kind := e.home.Kind
	return withDB(c, func(db *c4sync.DB) (string, error) { return db.ThresholdCheck(kind, threshold(c, kind)) })
}

// threshold is --threshold or C4_SYNC_THRESHOLD, else the layout's own.
func threshold(c *cli.Context, kind *tiers.Kind) int {
	if c.IsSet("threshold") {
		return c.Int("threshold")
	}
	return kind.SyncThreshold
}

// firstUse creates a missing C4 database and says so on stderr (the Node C4
// prints its notice on stdout, where it would spoil the JSON of
// unsummarized and the text of session-init).
func firstUse(e *env, path string) error {
	created, err := c4sync.FirstUse(path)
	if created {
		fmt.Fprintln(e.stderr, c4sync.CreatedNotice)
	}
	return err
}

func c4Init(c *cli.Context) error {
	e, path, err := c4Env(c)
	if err != nil {
		return err
	}
	created, err := c4sync.Create(path)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, c4sync.CreateLine(path, created))
	return err
}

// underSync reports whether c is a sync subcommand rather than a c4 one.
func underSync(c *cli.Context) bool {
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name == "sync" {
			return true
		}
	}
	return false
}
