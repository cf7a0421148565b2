package main

import (
	"fmt"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// version is the release this binary was built from; `make build` sets it
// from `git describe` at link time (-X main.version=...).
var version = "devel"

// printVersion prints the release; a binary built without `make build`
// names the commit the go command stamped instead, for a bug report.
func printVersion(c *cli.Context) {
	if version != "devel" {
		fmt.Fprintf(c.App.Writer, "zylos-memory %s\n", version)
		return
	}
	fmt.Fprintf(c.App.Writer, "zylos-memory %s%s\n", version, revision())
}

// revision is " (commit abcdef123456)" or " (commit abcdef123456, modified)"
// from the build's VCS stamp, or "" when there is none.
func revision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return fmt.Sprintf(" (commit %.12s%s)", rev, modified)
}
