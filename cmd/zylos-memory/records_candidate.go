package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/recall"
	"github.com/zylos/zylos-memory/tiers/records"
)

// maxNewInfo bounds --new-info-file: new information is a paragraph, not a
// transcript.
const maxNewInfo = 1 << 20

func newRecordsCandidateCommand() *cli.Command {
	return &cli.Command{
		Name:  "candidate",
		Usage: "find the existing record new information belongs to, and the CUD actions open to it (JSON)",
		UsageText: "zylos-memory records candidate --category C (--new-info TEXT | --new-info-file F)" +
			" [--lifecycle-event E] [--root R]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "category", Required: true, Usage: strings.Join(records.Categories, "|")},
			&cli.StringFlag{Name: "new-info", Usage: "the new information"},
			&cli.StringFlag{Name: "new-info-file", Usage: "file holding the new information"},
			&cli.StringFlag{Name: "lifecycle-event", Usage: strings.Join(recall.LifecycleEvents, "|")},
			recallRootFlag(),
		},
		Action: runCandidate,
	}
}

func runCandidate(c *cli.Context) error {
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	opts, err := candidateOptions(c)
	if err != nil {
		return cli.Exit(fmt.Sprintf("zylos-memory: records candidate: error: %v", err), 2)
	}
	if opts.Root, err = recordsRoot(c, e, ""); err != nil {
		return err
	}
	opts.Warn = e.stderr
	res, err := recall.SelectCandidate(opts)
	if errors.Is(err, recall.ErrNoIndex) {
		fmt.Fprintf(e.stderr, "Error: %v\n", err)
		return cli.Exit("", 1)
	}
	if err != nil {
		return err
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false) // the plugin prints <, > and & as they are
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return fmt.Errorf("encode candidate: %w", err)
	}
	return nil
}

// candidateOptions checks the flags as the plugin's argparse does.
func candidateOptions(c *cli.Context) (recall.CandidateOptions, error) {
	opts := recall.CandidateOptions{
		Category:       c.String("category"),
		NewInfo:        c.String("new-info"),
		LifecycleEvent: c.String("lifecycle-event"),
	}
	opts.Cwd, _ = os.Getwd()
	if !records.ValidCategory(opts.Category) {
		return opts, fmt.Errorf("invalid --category %q (choose from %s)", opts.Category, strings.Join(records.Categories, ", "))
	}
	if opts.LifecycleEvent != "" && !slices.Contains(recall.LifecycleEvents, opts.LifecycleEvent) {
		return opts, fmt.Errorf("invalid --lifecycle-event %q (choose from %s)", opts.LifecycleEvent, strings.Join(recall.LifecycleEvents, ", "))
	}
	// --new-info-file takes precedence over --new-info, as in the plugin.
	switch file := c.String("new-info-file"); {
	case file != "":
		text, err := readNewInfo(file)
		if err != nil {
			return opts, err
		}
		opts.NewInfo = text
	case !c.IsSet("new-info"):
		return opts, fmt.Errorf("one of --new-info or --new-info-file is required")
	}
	return opts, nil
}

func readNewInfo(path string) (string, error) {
	f, err := regfile.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("--new-info-file not found: %s", path)
	case errors.Is(err, fs.ErrPermission):
		return "", fmt.Errorf("--new-info-file permission denied: %s", path)
	case err != nil:
		return "", fmt.Errorf("--new-info-file read error: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxNewInfo+1))
	if err != nil {
		return "", fmt.Errorf("read --new-info-file: %w", err)
	}
	if len(data) > maxNewInfo {
		return "", fmt.Errorf("--new-info-file %s is larger than %d bytes", path, maxNewInfo)
	}
	return string(data), nil
}
